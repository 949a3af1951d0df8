import type { KnownBlock } from "@slack/types";
import { quoteArg } from "../model/command-text.ts";
import {
  compareRisks,
  KIND_TITLES,
  RISK_KINDS,
  type Risk,
  type RiskKind,
  type Severity,
} from "../model/risk.ts";
import { buttonRows, commandButton, context, fitMessage, header, section } from "./blocks.ts";
import { clampText, LIMITS } from "./limits.ts";
import { code, escapeMrkdwn } from "./mrkdwn.ts";
import { scopeArg } from "./scope.ts";

/**
 * The radar's Slack views (issue 28), pure: a notice of one risk of one cluster (edited in place
 * as it changes, and when it is gone), and `/palette risks`, grouped by kind, worst first.
 */

export interface RiskRow {
  clusterUid: string;
  name: string;
  project: string;
  risk: Risk;
  since: number;
  readAt?: number;
}

const EMOJI: Record<Severity, string> = {
  critical: ":red_circle:",
  warning: ":large_orange_circle:",
  info: ":information_source:",
};

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const minute = (ms: number): string =>
  `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** The fix a risk's card offers: the verb it runs, as the person who clicks. */
function fixButton(row: Pick<RiskRow, "clusterUid" | "project">, kind: RiskKind) {
  const target = `${quoteArg(row.clusterUid)}${scopeArg(row.project || undefined)}`;
  switch (kind) {
    case "certificates":
      return commandButton("Renew certificates", `renew certificates ${target}`, "renew_certs");
    case "repave":
      return commandButton("Approve repave", `repave approve ${target}`, "repave");
    case "update":
      return commandButton("Upgrade…", `upgrade ${target}`, "upgrade");
    case "backup":
      return commandButton("Back up now", `backup ${target}`, "backup");
  }
}

function detail(risk: Risk): string {
  if (risk.at === undefined) return "";
  if (risk.kind === "certificates") return ` (expiry ${day(risk.at)})`;
  if (risk.kind === "repave") return ` (first seen pending ${minute(risk.at)})`;
  if (risk.kind === "backup") return ` (${minute(risk.at)})`;
  return "";
}

/** The fallback text of a notice: plain words, escaped like the blocks. */
export function riskNoticeText(row: RiskRow): string {
  return escapeMrkdwn(`${row.name}: ${row.risk.summary}`);
}

export function riskNoticeBlocks(row: RiskRow): KnownBlock[] {
  const { risk } = row;
  const blocks: KnownBlock[] = [
    section(
      clampText(
        `${EMOJI[risk.severity]} *${escapeMrkdwn(row.name)}* · ${KIND_TITLES[risk.kind]}\n${escapeMrkdwn(risk.summary)}${detail(risk)}`,
        LIMITS.sectionText,
      ),
    ),
    context(
      `UID ${code(row.clusterUid)}${row.project ? ` · project ${code(row.project)}` : ""} · since ${minute(row.since)}${row.readAt !== undefined ? ` · last read ${minute(row.readAt)}` : ""}`,
    ),
    ...buttonRows([fixButton(row, risk.kind)]),
  ];
  return fitMessage(blocks);
}

/** The notice once its risk no longer holds: said, with no button left to press. */
export function riskGoneBlocks(
  notice: { clusterUid: string; kind: RiskKind; name: string },
  at: number,
): KnownBlock[] {
  return [
    section(
      `:white_check_mark: *${escapeMrkdwn(notice.name)}* · ${KIND_TITLES[notice.kind]}: no longer holds`,
    ),
    context(`UID ${code(notice.clusterUid)} · gone as of ${minute(at)}`),
  ];
}

export function riskGoneText(name: string, kind: RiskKind): string {
  return escapeMrkdwn(`${name}: ${KIND_TITLES[kind]}: no longer holds`);
}

/** At most this many clusters per kind in `/palette risks` (the rest are counted). */
export const RISKS_PER_KIND = 10;

/** `/palette risks`: grouped by kind, worst first, with when each cluster was last read. */
export interface RisksFilter {
  project?: string;
  tag?: string;
}

function whereText(filter: RisksFilter): string {
  return [
    filter.project ? `project ${code(filter.project)}` : undefined,
    filter.tag ? `tag ${code(filter.tag)}` : undefined,
  ]
    .filter(Boolean)
    .join(", ");
}

const NOTHING =
  "no certificate near expiry, no repave waiting, no failing backup, no newer profile";

/** The fallback text of `/palette risks` (plain words; the reply escapes it). */
export function risksSummaryText(rows: readonly RiskRow[], filter: RisksFilter): string {
  if (rows.length === 0) return `Nothing on the radar: ${NOTHING}`;
  const counts = RISK_KINDS.flatMap((kind) => {
    const n = rows.filter((row) => row.risk.kind === kind).length;
    return n > 0 ? [`${n} ${KIND_TITLES[kind].toLowerCase()}`] : [];
  });
  return `On the radar${filter.project || filter.tag ? " (filtered)" : ""}: ${counts.join(", ")}`;
}

export function risksListBlocks(rows: readonly RiskRow[], filter: RisksFilter): KnownBlock[] {
  const where = whereText(filter);
  if (rows.length === 0) {
    return [section(`Nothing on the radar${where ? ` in ${where}` : ""}: ${NOTHING}.`)];
  }
  const blocks: KnownBlock[] = [header("On the radar")];
  for (const kind of RISK_KINDS) {
    const ofKind = rows.filter((row) => row.risk.kind === kind).sort(compareRisks);
    if (ofKind.length === 0) continue;
    const shown = ofKind.slice(0, RISKS_PER_KIND);
    const lines = shown.map(
      (row) =>
        `${EMOJI[row.risk.severity]} *${escapeMrkdwn(row.name)}*: ${escapeMrkdwn(row.risk.summary)}${detail(row.risk)} · read ${row.readAt !== undefined ? minute(row.readAt) : "_not yet_"}`,
    );
    const more =
      ofKind.length > shown.length ? `\n_…and ${ofKind.length - shown.length} more_` : "";
    blocks.push(
      section(
        clampText(
          `*${KIND_TITLES[kind]}* (${ofKind.length})\n${lines.join("\n")}`,
          LIMITS.sectionText - more.length,
        ) + more,
      ),
    );
  }
  if (where) blocks.push(context(`Filtered to ${where}`));
  return fitMessage(blocks);
}
