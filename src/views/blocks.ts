import type {
  ActionsBlock,
  Button,
  ContextBlock,
  DividerBlock,
  HeaderBlock,
  KnownBlock,
  MrkdwnElement,
  SectionBlock,
} from "@slack/types";
import { RUN_COMMAND_ACTION } from "../model/command-text.ts";
import { clampList, clampText, LIMITS, moreLabel } from "./limits.ts";

/**
 * Block constructors that clamp to Slack's limits, so a view cannot build a block Slack would
 * refuse whatever the data. Text given to `section`, `fields` and `context` is mrkdwn the caller
 * has already escaped; `header` and button labels are plain text and need no escaping.
 */

const nonEmpty = (text: string): string => (text.trim().length === 0 ? " " : text);

export function header(text: string): HeaderBlock {
  const plain = nonEmpty(text.replace(/\s+/g, " ").trim());
  return {
    type: "header",
    text: { type: "plain_text", text: clampText(plain, LIMITS.headerText) },
  };
}

export function section(mrkdwn: string): SectionBlock {
  return { type: "section", text: mrkdwn_(mrkdwn, LIMITS.sectionText) };
}

export function fields(items: readonly string[]): SectionBlock {
  const { shown } = clampList(items, LIMITS.fieldsPerSection);
  return { type: "section", fields: shown.map((text) => mrkdwn_(text, LIMITS.fieldText)) };
}

export function context(...texts: string[]): ContextBlock {
  const { shown } = clampList(texts.length > 0 ? texts : [" "], LIMITS.contextElements);
  return { type: "context", elements: shown.map((text) => mrkdwn_(text, LIMITS.contextText)) };
}

export function divider(): DividerBlock {
  return { type: "divider" };
}

/** A button that runs `/palette <command>` again when clicked (the edge reads `value`). */
export function commandButton(label: string, command: string, suffix: string): Button | undefined {
  // A command longer than a button may carry cannot be replayed; better no button than a wrong one.
  if (command.length > LIMITS.buttonValue) return undefined;
  return {
    type: "button",
    text: { type: "plain_text", text: clampText(nonEmpty(label), LIMITS.buttonText) },
    action_id: runCommandActionId(suffix),
    value: command,
  };
}

export function urlButton(label: string, url: string, suffix: string): Button | undefined {
  if (url.length > LIMITS.buttonUrl) return undefined;
  return {
    type: "button",
    text: { type: "plain_text", text: clampText(nonEmpty(label), LIMITS.buttonText) },
    action_id: `palette_link:${suffix}`.slice(0, LIMITS.actionId),
    url,
  };
}

/**
 * Slack wants action ids unique within a block, so each command button gets
 * `palette_run:<suffix>`; the Slack edge matches the `palette_run` prefix.
 */
export function runCommandActionId(suffix: string): string {
  const clean = suffix.replace(/[^A-Za-z0-9_.-]/g, "_");
  return `${RUN_COMMAND_ACTION}:${clean}`.slice(0, LIMITS.actionId);
}

/**
 * Rows of at most five buttons (a row per actions block), at most `maxRows` rows; buttons that
 * do not fit are announced in a context line.
 */
export function buttonRows(buttons: readonly (Button | undefined)[], maxRows = 4): KnownBlock[] {
  const present = buttons.filter((button): button is Button => button !== undefined);
  const { shown, hidden } = clampList(present, maxRows * LIMITS.actionsElements);
  const rows: KnownBlock[] = [];
  for (let start = 0; start < shown.length; start += LIMITS.actionsElements) {
    const row: ActionsBlock = {
      type: "actions",
      elements: uniqueIds(shown.slice(start, start + LIMITS.actionsElements)),
    };
    rows.push(row);
  }
  if (hidden > 0) rows.push(context(`_${moreLabel(hidden)}_`));
  return rows;
}

function uniqueIds(buttons: Button[]): Button[] {
  const seen = new Set<string>();
  return buttons.map((button, index) => {
    let id = button.action_id ?? `palette_button:${index}`;
    if (seen.has(id)) id = `${id.slice(0, LIMITS.actionId - 4)}:${index}`;
    seen.add(id);
    return { ...button, action_id: id };
  });
}

function mrkdwn_(text: string, max: number): MrkdwnElement {
  return { type: "mrkdwn", text: clampText(nonEmpty(text), max) };
}

/** Keeps a message within the block limit, replacing the overflow with one "…and N more" line. */
export function fitMessage(blocks: KnownBlock[]): KnownBlock[] {
  if (blocks.length <= LIMITS.blocksPerMessage) return blocks;
  const keep = blocks.slice(0, LIMITS.blocksPerMessage - 1);
  const hidden = blocks.length - keep.length;
  return [...keep, context(`_${moreLabel(hidden)} blocks; narrow the command to see them_`)];
}
