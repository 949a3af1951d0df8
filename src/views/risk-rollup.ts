import type { KnownBlock } from "@slack/types";
import { KIND_TITLES, type RiskKind, type Severity } from "../model/risk.ts";
import { buttonRows, commandButton, context, fitMessage, section } from "./blocks.ts";
import { blockTextLength, clampText, LIMITS, packLines } from "./limits.ts";
import { escapeMrkdwn } from "./mrkdwn.ts";

/**
 * Pure: the Block Kit of a roll-up of risk notices alike (issue 31 item 3): the kind and, for a
 * newer profile version, which one; how many clusters it holds for and how many no longer; a
 * bounded list of them with "…and N more". Edited in place as members come and go.
 */

/** at most this many clusters are named (each line short): well inside ~11,000 chars of text */
export const ROLLUP_LINES = 40;
const LINE_CHARS = 140;

export interface RollupMember {
  name: string;
  severity: Severity;
  /** plain text */
  summary: string;
}

export interface RollupView {
  kind: RiskKind;
  /** plain text: the profile versions of a newer-version roll-up */
  label?: string;
  /** the first members, worst first or by name (at most ROLLUP_LINES are shown) */
  members: readonly RollupMember[];
  /** how many clusters it holds for now (members may be fewer: the rest are counted) */
  holding: number;
  /** how many were in it and no longer hold */
  ended: number;
  at: number;
}

const EMOJI: Record<Severity, string> = {
  critical: ":red_circle:",
  warning: ":large_orange_circle:",
  info: ":information_source:",
};

const minute = (ms: number): string =>
  `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
const clusters = (n: number): string => `${n} cluster${n === 1 ? "" : "s"}`;

function title(view: RollupView): string {
  return `${KIND_TITLES[view.kind]}${view.label ? ` · ${view.label}` : ""}`;
}

/** The fallback text: plain words, escaped like the blocks. */
export function riskRollupText(view: RollupView): string {
  const text =
    view.holding === 0
      ? `${title(view)}: no longer holds (${clusters(view.ended)})`
      : `${title(view)}: ${clusters(view.holding)}${view.ended > 0 ? `, ${view.ended} no longer` : ""}`;
  return clampText(escapeMrkdwn(text), LIMITS.fallbackText);
}

export function riskRollupBlocks(view: RollupView): KnownBlock[] {
  const head = escapeMrkdwn(title(view));
  if (view.holding === 0) {
    return [
      section(
        clampText(
          `:white_check_mark: *${head}*: no longer holds for any of the ${clusters(view.ended)}`,
          LIMITS.sectionText,
        ),
      ),
      context(`Roll-up of risk notices alike · gone as of ${minute(view.at)}`),
    ];
  }
  const worst = view.members.some((m) => m.severity === "critical")
    ? "critical"
    : view.members.some((m) => m.severity === "warning")
      ? "warning"
      : "info";
  const shown = view.members.slice(0, ROLLUP_LINES);
  const lines = shown.map((m) =>
    clampText(
      `${EMOJI[m.severity]} *${escapeMrkdwn(m.name)}*: ${escapeMrkdwn(m.summary)}`,
      LINE_CHARS,
    ),
  );
  const hidden = view.holding - shown.length;
  if (hidden > 0) lines.push(`_…and ${hidden} more_`);
  const blocks: KnownBlock[] = [
    section(
      clampText(
        `${EMOJI[worst]} *${head}*\n*${clusters(view.holding)}*${view.ended > 0 ? ` · ${view.ended} no longer hold` : ""}`,
        LIMITS.sectionText,
      ),
    ),
    ...packLines(lines, LIMITS.sectionText, 3).map((chunk) => section(chunk)),
    context(
      `Roll-up of risk notices alike, edited as clusters come and go · updated ${minute(view.at)} · \`/palette risks\` lists every risk`,
    ),
    ...buttonRows([commandButton("List risks", "risks", "risks")]),
  ];
  // a bound kept by construction (≤ 40 lines of ≤ 140); checked again so no edit is refused
  if (blockTextLength(blocks) > LIMITS.messageBlockText) return fitMessage(blocks.slice(0, 2));
  return fitMessage(blocks);
}
