import type { KnownBlock } from "@slack/types";
import type { EdgeHostRecord } from "../model/edge-host.ts";
import { context, fitMessage, section } from "./blocks.ts";
import { blockTextLength, clampText, LIMITS, packLines } from "./limits.ts";
import { code, escapeMrkdwn, slackDate } from "./mrkdwn.ts";

/**
 * Pure: the Block Kit of the edge fleet's notices (issue 39). One host's notice (dark, unpaired,
 * back, gone), edited in place from the first to the last; and a site's roll-up (many hosts of
 * one site dark together), edited as hosts join or recover. Every host-, site-, cluster- or
 * Palette-supplied string is escaped, in the fallback text too; "dark since" is the bot's own
 * measure, since Palette keeps no last-seen time for a host.
 */

export type EdgeNoticeKind = "unhealthy" | "unpaired" | "recovered" | "gone";

export interface EdgeHostNoticeView {
  kind: EdgeNoticeKind;
  host: EdgeHostRecord;
  /** for `recovered` and `gone`: what was told before */
  was?: "unhealthy" | "unpaired";
  /** for `recovered`: how long it was dark, by the bot's reads */
  darkMs?: number;
  at: number;
}

export interface EdgeSiteRollupView {
  site: string;
  projectName?: string;
  /** the site's hosts dark now (named up to SITE_LINES; the rest counted) */
  dark: readonly EdgeHostRecord[];
  /** hosts of the roll-up that are back */
  back: number;
  at: number;
}

export const SITE_LINES = 40;
const LINE_CHARS = 160;

/** "37 min", "2 h 5 min", "3 d 4 h": how long, in the words a channel reads at a glance. */
export function formatDuration(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h${minutes % 60 ? ` ${minutes % 60} min` : ""}`;
  return `${Math.floor(hours / 24)} d${hours % 24 ? ` ${hours % 24} h` : ""}`;
}

function headline(view: EdgeHostNoticeView): { emoji: string; plain: string } {
  const { host } = view;
  switch (view.kind) {
    case "unhealthy":
      return { emoji: ":red_circle:", plain: `Edge host ${host.name} is unhealthy` };
    case "unpaired":
      return { emoji: ":large_orange_circle:", plain: `Edge host ${host.name} is unpaired` };
    case "recovered":
      return {
        emoji: ":large_green_circle:",
        plain:
          view.was === "unpaired"
            ? `Edge host ${host.name} is paired again`
            : `Edge host ${host.name} is healthy again${view.darkMs !== undefined ? ` after ${formatDuration(view.darkMs)}` : ""}`,
      };
    case "gone":
      return { emoji: ":white_circle:", plain: `Edge host ${host.name} was deleted from Palette` };
  }
}

function where(host: EdgeHostRecord): string[] {
  return [
    ...(host.site ? [`site ${code(host.site)}`] : []),
    ...(host.clusterName ? [`cluster ${code(host.clusterName)}`] : []),
  ];
}

export function edgeHostNoticeText(view: EdgeHostNoticeView): string {
  return clampText(escapeMrkdwn(headline(view).plain), LIMITS.fallbackText);
}

export function edgeHostNoticeBlocks(view: EdgeHostNoticeView): KnownBlock[] {
  const { host } = view;
  const { emoji, plain } = headline(view);
  const lines = [`${emoji} *${escapeMrkdwn(plain)}*`];
  const place = where(host);
  if (place.length > 0) lines.push(place.join(" · "));
  if (view.kind === "unhealthy" && host.unhealthySince !== undefined) {
    lines.push(
      `Dark since ${slackDate(host.unhealthySince, "dateTime")} (the bot's first read of it unhealthy)`,
    );
  }
  if (view.kind !== "recovered" && host.message) {
    lines.push(`> ${escapeMrkdwn(host.message).replace(/\n/g, " ")}`);
  }
  if (view.kind !== "gone" && host.lastSeenHealthy !== undefined && view.kind !== "recovered") {
    lines.push(`Last seen healthy ${slackDate(host.lastSeenHealthy, "dateTime")}`);
  }
  // no "Host details" button yet: `/palette edge host` is still to come, and a button must work
  return fitMessage([
    section(clampText(lines.join("\n"), LIMITS.sectionText)),
    context(`Edge host ${code(host.uid)} · updated ${slackDate(view.at, "dateTime")}`),
  ]);
}

const hostsWord = (n: number): string => `${n} edge host${n === 1 ? "" : "s"}`;

function siteTitle(view: EdgeSiteRollupView): string {
  return `Site ${view.site}${view.projectName ? ` (${view.projectName})` : ""}`;
}

export function edgeSiteRollupText(view: EdgeSiteRollupView): string {
  const text =
    view.dark.length === 0
      ? `${siteTitle(view)}: all ${hostsWord(view.back)} healthy again`
      : `${siteTitle(view)}: ${hostsWord(view.dark.length)} dark${view.back > 0 ? `, ${view.back} back` : ""}`;
  return clampText(escapeMrkdwn(text), LIMITS.fallbackText);
}

export function edgeSiteRollupBlocks(view: EdgeSiteRollupView): KnownBlock[] {
  const title = escapeMrkdwn(siteTitle(view));
  const footer = context(
    `One message for the site, edited as hosts go dark or come back · updated ${slackDate(view.at, "dateTime")}`,
  );
  if (view.dark.length === 0) {
    return fitMessage([
      section(`:large_green_circle: *${title}*: all ${hostsWord(view.back)} healthy again`),
      footer,
    ]);
  }
  const since = Math.min(...view.dark.map((host) => host.unhealthySince ?? view.at));
  const clusters = [
    ...new Set(view.dark.flatMap((host) => (host.clusterName ? [host.clusterName] : []))),
  ];
  const shown = view.dark.slice(0, SITE_LINES);
  const lines = shown.map((host) =>
    clampText(
      `• ${code(host.name)}${host.clusterName ? ` · ${code(host.clusterName)}` : ""}${host.state === "unpaired" ? " · unpaired" : ""}`,
      LINE_CHARS,
    ),
  );
  const hidden = view.dark.length - shown.length;
  if (hidden > 0) lines.push(`_…and ${hidden} more_`);
  const message = view.dark.find((host) => host.message)?.message;
  const head = [
    `:red_circle: *${title}*: ${hostsWord(view.dark.length)} dark since ${slackDate(since, "time")}${view.back > 0 ? ` · ${view.back} back` : ""}`,
    ...(clusters.length > 0
      ? [
          `clusters ${clusters.slice(0, 10).map(code).join(", ")}${clusters.length > 10 ? ` and ${clusters.length - 10} more` : ""}`,
        ]
      : []),
    ...(message ? [`last message: ${escapeMrkdwn(message).replace(/\n/g, " ")}`] : []),
  ];
  const blocks: KnownBlock[] = [
    section(clampText(head.join("\n"), LIMITS.sectionText)),
    ...packLines(lines, LIMITS.sectionText, 3).map((chunk) => section(chunk)),
    footer,
  ];
  // bounded by construction (≤ 40 lines of ≤ 160); checked again so no edit is refused
  if (blockTextLength(blocks) > LIMITS.messageBlockText) return fitMessage([blocks[0]!, footer]);
  return fitMessage(blocks);
}
