import type { SnoozeChoice } from "./notification.ts";

/**
 * When a snooze or a mute ends, as epoch milliseconds. Pure: the clock's `now` and the user's
 * time zone (an IANA name from Slack's `users.info`) come in as arguments.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** A mute longer than this is refused: a forgotten mute silences a cluster for good. */
export const MAX_MUTE_DAYS = 90;

/** The hour a "next weekday" snooze ends, in the user's own zone. */
const WORKDAY_STARTS_AT = 9;

export function isTimeZone(zone: string): boolean {
  if (zone.trim() === "") return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

interface LocalTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function localTime(ms: number, zone: string): LocalTime {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(zone, format);
  }
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(ms)) {
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year!,
    month: parts.month!,
    day: parts.day!,
    hour: parts.hour!,
    minute: parts.minute!,
    second: parts.second!,
  };
}

/** How far `zone` is ahead of UTC at the instant `ms`. */
function offsetMs(ms: number, zone: string): number {
  const t = localTime(ms, zone);
  const wall = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);
  return wall - Math.floor(ms / 1000) * 1000;
}

/** The instant the wall clock in `zone` shows `hour`:00 on the given day. */
function zonedInstant(year: number, month: number, day: number, hour: number, zone: string) {
  const wall = Date.UTC(year, month - 1, day, hour);
  let guess = wall - offsetMs(wall, zone);
  // a second pass settles a day whose offset changes (summer time) between the two instants
  for (let pass = 0; pass < 2; pass++) {
    const next = wall - offsetMs(guess, zone);
    if (next === guess) break;
    guess = next;
  }
  return guess;
}

/** The next 09:00 after `nowMs` that falls on a Monday to Friday, on the wall clock of `zone`. */
export function nextWeekdayNine(nowMs: number, zone: string): number {
  const today = localTime(nowMs, zone);
  for (let ahead = 0; ahead < 8; ahead++) {
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day + ahead));
    const weekday = date.getUTCDay();
    if (weekday === 0 || weekday === 6) continue;
    const at = zonedInstant(
      date.getUTCFullYear(),
      date.getUTCMonth() + 1,
      date.getUTCDate(),
      WORKDAY_STARTS_AT,
      zone,
    );
    if (at > nowMs) return at;
  }
  // unreachable: a week always holds a weekday morning still to come
  throw new Error(`no weekday 09:00 found in ${zone}`);
}

/** The end of a snooze chosen on the card; `zone` matters only for `weekday`. */
export function snoozeUntil(choice: SnoozeChoice, nowMs: number, zone: string): number {
  switch (choice) {
    case "1h":
      return nowMs + HOUR_MS;
    case "4h":
      return nowMs + 4 * HOUR_MS;
    case "24h":
      return nowMs + DAY_MS;
    case "weekday":
      return nextWeekdayNine(nowMs, zone);
  }
}

/** How long a mute lasts: a number of days, or until a date (`YYYY-MM-DD`, as that day begins, UTC). */
export type MuteLength = { days: number } | { until: string };

export type MuteEnd = { ok: true; untilMs: number } | { ok: false; problem: string };

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function muteUntil(length: MuteLength, nowMs: number): MuteEnd {
  if ("days" in length) {
    if (!Number.isInteger(length.days) || length.days < 1 || length.days > MAX_MUTE_DAYS) {
      return { ok: false, problem: `A mute lasts 1 to ${MAX_MUTE_DAYS} days.` };
    }
    return { ok: true, untilMs: nowMs + length.days * DAY_MS };
  }
  const match = DATE.exec(length.until);
  const untilMs = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : NaN;
  // Date.UTC rolls 2026-02-30 over into March: a date that does not exist reads back different
  if (!match || new Date(untilMs).toISOString().slice(0, 10) !== length.until) {
    return { ok: false, problem: "Give the date as YYYY-MM-DD, e.g. 2026-12-01." };
  }
  if (untilMs <= nowMs) {
    return {
      ok: false,
      problem: "Pick a day after today: the mute ends as that day begins (00:00 UTC).",
    };
  }
  if (untilMs - nowMs > MAX_MUTE_DAYS * DAY_MS) {
    return { ok: false, problem: `A mute lasts at most ${MAX_MUTE_DAYS} days.` };
  }
  return { ok: true, untilMs };
}
