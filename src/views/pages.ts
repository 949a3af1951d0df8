import type { KnownBlock } from "@slack/types";
import { buttonRows, commandButton, context } from "./blocks.ts";
import { blockTextLength, LIMITS } from "./limits.ts";

/**
 * A long answer split into pages Slack takes, as Slack apps page a list: each page is the same
 * head, as many body blocks as fit, and "Page 2 of 3" with Previous/Next buttons that run the
 * command again for that page. A page stays under both of Slack's message limits: 50 blocks and
 * the text of all blocks together (LIMITS.messageBlockText; Slack answers `msg_blocks_too_long`
 * past about 11,000). Pure.
 */

export interface PagedBlocks {
  blocks: KnownBlock[];
  /** the page shown (a page past the end shows the last) */
  page: number;
  pages: number;
}

/** room kept on each page for its footer: the page line and two buttons with their commands */
const FOOTER_TEXT = 400;
const FOOTER_BLOCKS = 2;

/** body blocks split into pages: each page's blocks with the head's room taken off */
export function splitPages(
  head: readonly KnownBlock[],
  body: readonly KnownBlock[],
  maxText: number = LIMITS.messageBlockText,
): KnownBlock[][] {
  const textRoom = maxText - blockTextLength(head) - FOOTER_TEXT;
  const blockRoom = LIMITS.blocksPerMessage - head.length - FOOTER_BLOCKS;
  const pages: KnownBlock[][] = [];
  let current: KnownBlock[] = [];
  let text = 0;
  for (const block of body) {
    const size = blockTextLength(block);
    if (current.length > 0 && (text + size > textRoom || current.length + 1 > blockRoom)) {
      pages.push(current);
      current = [];
      text = 0;
    }
    current.push(block);
    text += size;
  }
  if (current.length > 0 || pages.length === 0) pages.push(current);
  return pages;
}

/**
 * One page of `head` + `body`. `commandFor(page)` is the command that shows that page (the
 * buttons replay it); without it a long answer still fits, and says how to see the rest.
 */
export function pageBlocks(
  head: readonly KnownBlock[],
  body: readonly KnownBlock[],
  page: number,
  commandFor?: (page: number) => string,
  maxText: number = LIMITS.messageBlockText,
): PagedBlocks {
  const pages = splitPages(head, body, maxText);
  const shown = Math.min(Math.max(1, Math.floor(page) || 1), pages.length);
  const blocks = [...head, ...pages[shown - 1]!];
  if (pages.length > 1) {
    blocks.push(context(`Page ${shown} of ${pages.length}`));
    if (commandFor) {
      const nav = buttonRows([
        shown > 1
          ? commandButton("◂ Previous page", commandFor(shown - 1), "page_prev")
          : undefined,
        shown < pages.length
          ? commandButton("Next page ▸", commandFor(shown + 1), "page_next")
          : undefined,
      ]);
      blocks.push(...nav);
    }
  }
  return { blocks, page: shown, pages: pages.length };
}
