import type { KnownBlock } from "@slack/types";
import { formatWall } from "../model/wall-clock.ts";
import { type LikelyCause, SLACK_USER_ID, type TimelineEntry, type Who } from "../model/why.ts";
import {
  buttonRows,
  commandButton,
  context,
  divider,
  fitMessage,
  header,
  section,
} from "./blocks.ts";
import { clampText, packLines } from "./limits.ts";
import { code, escapeMrkdwn } from "./mrkdwn.ts";

/**
 * `/palette why <cluster>`: the likely-cause line, then the story newest first (Palette's audit,
 * Palette's events, the bot's own record), a page at a time with a More button. Pure; every name
 * and message is escaped here, times are on the reader's wall clock.
 */

export interface WhyData {
  cluster: { uid: string; name: string; projectUid?: string };
  /** "24h", "7d", "2026-11-20" */
  rangeLabel: string;
  sinceMs: number;
  untilMs: number;
  /** the reader's time zone (IANA name) */
  timeZone: string;
  cause: LikelyCause;
  /** this page's entries, newest first */
  entries: readonly TimelineEntry[];
  page: number;
  pages: number;
  /** entries in the whole story (after warnings-first) */
  total: number;
  /** normal events left out because there were many */
  hiddenNormal: number;
  stoppedEarly: ReadonlyArray<"audit" | "events">;
  unavailable: ReadonlyArray<Unavailable>;
  /** Palette calls this answer made */
  calls: number;
  /** the command the More button runs; undefined on the last page */
  moreCommand?: string;
}

/** a source that could not be read; `of`: another object's (an edge host's cluster) */
export interface Unavailable {
  source: "audit" | "events";
  why: string;
  of?: string;
}

/** What a page of a story shows below its likely-cause line (a cluster's or an edge host's). */
export type StoryPage = Pick<
  WhyData,
  | "entries"
  | "timeZone"
  | "page"
  | "pages"
  | "total"
  | "hiddenNormal"
  | "stoppedEarly"
  | "unavailable"
  | "calls"
  | "moreCommand"
>;

const MESSAGE_CHARS = 300;

function whoText(who: Who | undefined): string {
  if (!who) return "";
  if (who.kind === "slack") {
    return SLACK_USER_ID.test(who.userId) ? `<@${who.userId}>` : escapeMrkdwn(who.userId);
  }
  return who.name === "Palette" ? "Palette" : code(who.name);
}

function mention(userId: string): string {
  return SLACK_USER_ID.test(userId) ? `<@${userId}>` : escapeMrkdwn(userId);
}

const SOURCE_ICON: Record<TimelineEntry["source"], string> = {
  audit: ":memo:",
  bot: ":robot_face:",
  event: ":bell:",
};

function icon(entry: TimelineEntry): string {
  if (entry.source === "event" && entry.severity === "error") return ":red_circle:";
  if (entry.source === "event" && entry.severity === "warning") return ":warning:";
  return SOURCE_ICON[entry.source];
}

/** One line of the story: time, source, what, who, message. */
export function entryLine(entry: TimelineEntry, timeZone: string): string {
  const when = `\`${formatWall(entry.at, timeZone)}\``;
  const by = entry.who ? ` by ${whoText(entry.who)}` : "";
  const message = entry.message
    ? ` — ${escapeMrkdwn(clampText(entry.message.replace(/\s+/g, " "), MESSAGE_CHARS))}`
    : "";
  const approved = entry.approver ? `, approved by ${mention(entry.approver)}` : "";
  const detail = entry.detail
    ? ` _(${escapeMrkdwn(clampText(entry.detail, 200))}${approved})_`
    : "";
  const source =
    entry.source === "audit" ? "Palette audit" : entry.source === "event" ? "event" : "bot";
  const of = entry.subject ? ` of ${code(entry.subject)}` : "";
  return `${when} ${icon(entry)} *${escapeMrkdwn(entry.what)}*${by}${message}${detail} · _${source}_${of}`;
}

/**
 * The likely-cause line, in mrkdwn. `unread`: sources that could not be read; a cause found
 * without them says so, since a change there would not show.
 */
export function causeLine(
  cause: LikelyCause,
  timeZone: string,
  unread: ReadonlyArray<"audit" | "events"> = [],
): string {
  const line = causeWords(cause, timeZone);
  if (cause.kind === "no-trouble" || unread.length === 0) return line;
  const what = unread.map((source) => (source === "audit" ? "Palette's audit" : "the events"));
  return `${line} _(${what.join(" and ")} could not be read: a change recorded there would not show here.)_`;
}

function causeWords(cause: LikelyCause, timeZone: string): string {
  const at = (ms: number) => `\`${formatWall(ms, timeZone)}\``;
  switch (cause.kind) {
    case "no-trouble": {
      const now = [cause.state, cause.health].filter(Boolean).map((w) => escapeMrkdwn(w!));
      return `:white_check_mark: *No current trouble*${now.length > 0 ? ` (${now.join(", ")})` : ""}: nothing to explain.`;
    }
    case "write": {
      const entry = cause.entry;
      const by = entry.who ? ` by ${whoText(entry.who)}` : "";
      const message = entry.message
        ? ` — ${escapeMrkdwn(clampText(entry.message, MESSAGE_CHARS))}`
        : "";
      const minutes = Math.max(0, Math.round((cause.troubleAt - entry.at) / 60_000));
      const began = cause.trouble
        ? `${escapeMrkdwn(cause.trouble.what)} at ${at(cause.troubleAt)}`
        : `the trouble (no warning event marks when it began; looked at the hour before now)`;
      return `:mag: *Likely cause:* *${escapeMrkdwn(entry.what)}*${by} at ${at(entry.at)}${message}, ${minutes} min before ${began}.`;
    }
    case "event": {
      const entry = cause.entry;
      const message = entry.message
        ? ` — ${escapeMrkdwn(clampText(entry.message, MESSAGE_CHARS))}`
        : "";
      return `:mag: *Likely cause:* no change recorded before it; the ${entry.severity === "error" ? "error" : "warning"} event *${escapeMrkdwn(entry.what)}* at ${at(entry.at)} began it${message}.`;
    }
    default: {
      const now = [cause.state, cause.health].filter(Boolean).map((w) => escapeMrkdwn(w!));
      return `:grey_question: *Likely cause unknown:* it is ${now.join(", ") || "in trouble"}, but no warning event in this range says since when, and no change is recorded in the hour before now.`;
    }
  }
}

export function whyText(data: WhyData): string {
  const plain = causeLine(data.cause, data.timeZone)
    .replace(/:[a-z_]+:\s*/g, "")
    .replace(/[*_`]/g, "");
  return `Why ${data.cluster.name}: ${plain}`;
}

export function whyBlocks(data: WhyData): KnownBlock[] {
  const name = data.cluster.name || data.cluster.uid;
  const blocks: KnownBlock[] = [
    header(`Why: ${name}`),
    context(
      `Since ${escapeMrkdwn(data.rangeLabel)} (${code(formatWall(data.sinceMs, data.timeZone))} → ${code(formatWall(data.untilMs, data.timeZone))}, ${escapeMrkdwn(data.timeZone)}) · UID ${code(data.cluster.uid)}`,
    ),
    section(
      causeLine(
        data.cause,
        data.timeZone,
        data.unavailable.map((missing) => missing.source),
      ),
    ),
    divider(),
  ];
  blocks.push(...storyBlocks(data));
  return fitMessage(blocks);
}

/** The entries, the notes (pages, limits, what could not be read, Palette calls) and More. */
export function storyBlocks(data: StoryPage): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  if (data.entries.length === 0) {
    blocks.push(
      section(
        "_Nothing recorded for it in this range: no audit entry, no event, nothing through this bot._",
      ),
    );
  } else {
    for (const chunk of packLines(
      data.entries.map((entry) => entryLine(entry, data.timeZone)),
      2900,
      8,
    )) {
      blocks.push(section(chunk));
    }
  }
  const notes: string[] = [];
  if (data.pages > 1) notes.push(`page ${data.page} of ${data.pages} (${data.total} entries)`);
  if (data.hiddenNormal > 0) {
    notes.push(`${data.hiddenNormal} normal events left out: warnings first when there are many`);
  }
  for (const source of data.stoppedEarly) {
    notes.push(
      `${source === "audit" ? "Palette's audit" : "the events"} stopped at the read limit; narrow \`since\` for older ones`,
    );
  }
  for (const missing of data.unavailable) {
    const of = missing.of ? ` of ${code(missing.of)}` : "";
    notes.push(
      `${missing.source === "audit" ? "Palette's audit" : "the events"}${of} could not be read: ${escapeMrkdwn(clampText(missing.why, 300))}`,
    );
  }
  notes.push(`${data.calls} Palette call${data.calls === 1 ? "" : "s"}`);
  blocks.push(context(notes.join(" · ")));
  if (data.moreCommand) {
    blocks.push(...buttonRows([commandButton("More", data.moreCommand, "why-more")]));
  }
  return blocks;
}
