import type { KnownBlock } from "@slack/types";
import type {
  Capped,
  ChannelDigestPayload,
  DigestClusterEvent,
  DigestProjectCounts,
} from "../model/channel-digest.ts";
import { formatWall } from "../model/wall-clock.ts";
import { context, fitMessage, header, section } from "./blocks.ts";
import { healthEmoji, stateEmoji } from "./emoji.ts";
import { clampText, LIMITS } from "./limits.ts";
import { bold, code, escapeMrkdwn } from "./mrkdwn.ts";
import type { RenderedMessage } from "./notification.ts";
import { formatAge } from "./time.ts";

/**
 * The scheduled channel digest (and its private preview) as Block Kit, pure. Every name, project,
 * state, reason and "by" is Palette- or user-supplied and escaped; every list arrives capped and
 * is packed into at most two sections, so the message fits whatever the fleet.
 */

/** Names and reasons are shown on one line each; longer ones are cut before escaping. */
const MAX_NAME = 120;
const MAX_DETAIL = 200;
/** sections one list may take */
const CHUNKS = 2;

const cut = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;
const name = (text: string) => bold(cut(text, MAX_NAME)) || "`?`";
const detail = (text: string) => escapeMrkdwn(cut(text.replace(/\s+/g, " "), MAX_DETAIL));
const projectLabel = (project: string) => (project ? code(cut(project, 64)) : "tenant scope");

function title(payload: ChannelDigestPayload): string {
  if (payload.preview) return "Digest preview";
  return payload.cadence === "weekly" ? "Weekly digest" : "Daily digest";
}

function projectLine(counts: DigestProjectCounts): string {
  const states = counts.byState
    .slice(0, 6)
    .map(([state, n]) => `${stateEmoji(state)} ${n} ${escapeMrkdwn(cut(state || "unknown", 40))}`)
    .join(" · ");
  const more = counts.byState.length > 6 ? ` · ${counts.byState.length - 6} other states` : "";
  const health = [
    `${healthEmoji("healthy")} ${counts.healthy} healthy`,
    counts.unhealthy > 0 ? `${healthEmoji("unhealthy")} ${counts.unhealthy} unhealthy` : "",
    counts.unknown > 0 ? `${healthEmoji("unknown")} ${counts.unknown} unknown` : "",
  ]
    .filter(Boolean)
    .join(" · ");
  return `${projectLabel(counts.project)}: ${counts.total} clusters — ${states}${more} — ${health}`;
}

/**
 * A titled list in at most two sections. Lines that do not fit, and the items the payload held
 * back, are counted together in one "…and N more <unit>" line.
 */
function listBlocks<T>(
  heading: string,
  list: Capped<T>,
  line: (item: T) => string,
  unit: string,
): KnownBlock[] {
  const lines = [`*${heading} (${list.total})*`, ...list.items.map(line)];
  const room = LIMITS.sectionText - 60; // the "…and N more" line
  const chunks: string[] = [];
  let current = "";
  let index = 0;
  for (; index < lines.length; index++) {
    const next = clampText(lines[index]!, room);
    const candidate = current === "" ? next : `${current}\n${next}`;
    if (candidate.length <= room) {
      current = candidate;
      continue;
    }
    if (chunks.length + 1 >= CHUNKS) break;
    chunks.push(current);
    current = next;
  }
  const hidden = lines.length - index + (list.total - list.items.length);
  if (hidden > 0) current = `${current}\n_…and ${hidden} more ${unit}_`;
  chunks.push(current);
  return chunks.map((chunk) => section(chunk));
}

const RISK_EMOJI: Record<string, string> = {
  critical: ":red_circle:",
  warning: ":large_orange_circle:",
  info: ":information_source:",
};

export function channelDigestBlocks(payload: ChannelDigestPayload): KnownBlock[] {
  const zone = payload.timeZone;
  const when = (iso: string) => {
    const ms = Date.parse(iso);
    return Number.isNaN(ms) ? escapeMrkdwn(iso) : formatWall(ms, zone);
  };
  const now = Date.parse(payload.to);
  const eventLine = (icon: string) => (event: DigestClusterEvent) =>
    `${icon} ${name(event.name)} · ${projectLabel(event.project)} · ${when(event.at)}${
      event.detail ? ` · ${detail(event.detail)}` : ""
    }`;

  const blocks: KnownBlock[] = [
    header(`${title(payload)}: ${payload.total} clusters`),
    context(
      `${when(payload.from)} → ${when(payload.to)} (${escapeMrkdwn(zone)}) · ${payload.subscriptions} subscription${payload.subscriptions === 1 ? "" : "s"} of this channel${
        payload.preview ? " · a preview only you see; nothing was posted" : ""
      }`,
    ),
  ];

  blocks.push(...listBlocks("By project", payload.projects, projectLine, "projects"));

  const quiet: string[] = [];
  const part = <T>(
    list: Capped<T>,
    heading: string,
    none: string,
    line: (item: T) => string,
    unit = "clusters",
  ) => {
    if (list.total === 0) quiet.push(none);
    else blocks.push(...listBlocks(heading, list, line, unit));
  };
  part(
    payload.longUnhealthy,
    "Unhealthy for more than 24 h",
    "none unhealthy for more than 24 h",
    (item) =>
      `${healthEmoji(item.health)} ${name(item.name)} · ${projectLabel(item.project)} · ${escapeMrkdwn(
        cut(item.health, 40),
      )} ${item.exact ? "since" : "at least since"} ${when(item.since)} (${formatAge(item.since, now) ?? "?"})`,
  );
  part(payload.launched, "Launched", "nothing launched", eventLine(":new:"));
  part(payload.deleted, "Deleted", "nothing deleted", eventLine(":wastebasket:"));
  part(payload.alertsRaised, "Alerts raised", "no alerts raised", eventLine(":rotating_light:"));
  part(
    payload.alertsResolved,
    "Alerts resolved",
    "no alerts resolved",
    eventLine(":white_check_mark:"),
  );
  part(
    payload.flapping,
    "Flapping the most",
    "no cluster flapping",
    (item) =>
      `:repeat: ${name(item.name)} · ${projectLabel(item.project)} · ${item.transitions} state and health changes${
        item.flappingNow ? " · flapping now" : ""
      }`,
  );
  if (payload.mutes) {
    part(
      payload.mutes,
      "Muted",
      "no cluster muted",
      (mute) =>
        `:mute: ${name(mute.cluster)} until ${when(mute.until)} · by ${detail(mute.by)}${
          mute.reason ? ` · ${detail(mute.reason)}` : ""
        }`,
      "mutes",
    );
  }
  if (payload.risks) {
    const risks = payload.risks;
    const counts = Object.entries(risks.counts)
      .map(([kind, n]) => `${n} ${escapeMrkdwn(kind)}`)
      .join(" · ");
    part(
      risks.worst,
      `Risks${counts ? ` — ${counts}` : ""}`,
      "nothing on the radar",
      (item) =>
        `${RISK_EMOJI[item.severity] ?? ":grey_question:"} ${name(item.name)} · ${projectLabel(item.project)} · ${escapeMrkdwn(item.title)}: ${detail(item.summary)}`,
      "risks",
    );
  }
  if (quiet.length > 0) blocks.push(context(`Since the last digest: ${quiet.join(" · ")}.`));
  return fitMessage(blocks);
}

/** The plain fallback (and the outbox row's text): counts only, nothing Palette named. */
export function channelDigestText(payload: ChannelDigestPayload): string {
  const parts = [
    `${payload.total} clusters`,
    `${payload.longUnhealthy.total} unhealthy for more than 24 h`,
    `${payload.launched.total} launched`,
    `${payload.deleted.total} deleted`,
    `${payload.alertsRaised.total} alerts raised`,
    `${payload.alertsResolved.total} resolved`,
  ];
  return clampText(`${title(payload)}: ${parts.join(", ")}`, LIMITS.fallbackText);
}

export function channelDigestMessage(payload: ChannelDigestPayload): RenderedMessage {
  return { text: channelDigestText(payload), blocks: channelDigestBlocks(payload) };
}
