import type { DigestSchedule } from "../../model/channel-digest.ts";
import { wallTime } from "../../model/wall-clock.ts";

/**
 * When a channel's digest is owed, as pure functions of (schedule, last run, now). node-cron's
 * ticks only say "look now"; what is posted is decided here, from the store and the injected
 * clock, so a tick missed while the bot was down, two ticks at once, or a clock change give the
 * same answer: the latest scheduled time at or before now, unless it already ran.
 */

export type ScheduleTime = Pick<
  DigestSchedule,
  "cadence" | "weekday" | "hour" | "minute" | "timeZone"
>;

const DAY_MS = 86_400_000;

/** How far `timeZone`'s wall clock is ahead of UTC at the instant `ms`. */
function offsetAt(ms: number, timeZone: string): number {
  const wall = wallTime(ms, timeZone);
  const whole = ms - (((ms % 1000) + 1000) % 1000);
  return Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second) - whole;
}

/**
 * The instant the wall clock in `timeZone` shows `hour:minute` on the given date. A time the
 * spring change skips maps to the same distance past the gap (02:30 → 03:30), as cron daemons
 * do; a time the autumn change repeats maps to its first occurrence.
 */
function instantOf(
  date: { year: number; month: number; day: number },
  hour: number,
  minute: number,
  timeZone: string,
): number {
  const naive = Date.UTC(date.year, date.month - 1, date.day, hour, minute);
  const before = offsetAt(naive - DAY_MS, timeZone);
  const after = offsetAt(naive + DAY_MS, timeZone);
  const valid = [...new Set([before, after])]
    .map((offset) => naive - offset)
    .filter((instant) => {
      const wall = wallTime(instant, timeZone);
      return (
        wall.year === date.year &&
        wall.month === date.month &&
        wall.day === date.day &&
        wall.hour === hour &&
        wall.minute === minute
      );
    });
  return valid.length > 0 ? Math.min(...valid) : naive - before;
}

/** The local date `days` away from the local date of `ms` in `timeZone`, with its weekday. */
function localDate(ms: number, timeZone: string, days: number) {
  const wall = wallTime(ms, timeZone);
  const date = new Date(Date.UTC(wall.year, wall.month - 1, wall.day + days));
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    weekday: date.getUTCDay(),
  };
}

function onDay(schedule: ScheduleTime, ms: number, days: number): number | undefined {
  const date = localDate(ms, schedule.timeZone, days);
  if (schedule.cadence === "weekly" && date.weekday !== schedule.weekday) return undefined;
  return instantOf(date, schedule.hour, schedule.minute, schedule.timeZone);
}

/** The latest scheduled instant at or before `now`. */
export function latestOccurrence(schedule: ScheduleTime, now: number): number | undefined {
  // a week and a day back covers a weekly schedule whose weekday is today but later
  for (let days = 0; days >= -8; days--) {
    const instant = onDay(schedule, now, days);
    if (instant !== undefined && instant <= now) return instant;
  }
  return undefined;
}

/** The first scheduled instant after `now`. */
export function nextOccurrence(schedule: ScheduleTime, now: number): number | undefined {
  for (let days = 0; days <= 8; days++) {
    const instant = onDay(schedule, now, days);
    if (instant !== undefined && instant > now) return instant;
  }
  return undefined;
}

/**
 * The occurrence to post now, if any: the latest one at or before `now`, when it is newer than
 * the last one posted and not older than the schedule itself. Older missed occurrences are never
 * owed: after days down, one digest goes out, not one per day.
 */
export function dueOccurrence(
  schedule: ScheduleTime & Pick<DigestSchedule, "setAt">,
  lastOccurrence: number | undefined,
  now: number,
): number | undefined {
  const latest = latestOccurrence(schedule, now);
  if (latest === undefined) return undefined;
  const setAt = Date.parse(schedule.setAt);
  if (!Number.isNaN(setAt) && latest < setAt) return undefined;
  if (lastOccurrence !== undefined && latest <= lastOccurrence) return undefined;
  return latest;
}

/** The node-cron expression (5 fields) whose ticks, in the schedule's zone, meet its times. */
export function cronOf(schedule: ScheduleTime): string {
  const weekday = schedule.cadence === "weekly" ? String(schedule.weekday ?? 1) : "*";
  return `${schedule.minute} ${schedule.hour} * * ${weekday}`;
}
