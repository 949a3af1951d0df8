import { describe, expect, it } from "vitest";
import type { DigestSchedule } from "../../../src/model/channel-digest.ts";
import { canonicalTimeZone } from "../../../src/model/wall-clock.ts";
import {
  cronOf,
  dueOccurrence,
  latestOccurrence,
  nextOccurrence,
} from "../../../src/notify/digest/digest-due.ts";

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
const at = (text: string) => Date.parse(text);

function schedule(over: Partial<DigestSchedule> = {}): DigestSchedule {
  return {
    channel: "C1",
    cadence: "daily",
    hour: 9,
    minute: 0,
    timeZone: "UTC",
    setBy: "U1",
    setAt: "2026-01-01T00:00:00.000Z",
    ...over,
  };
}

describe("latestOccurrence: the last scheduled time at or before now, in the schedule's zone", () => {
  it("daily in UTC: today once it is past, else yesterday", () => {
    const s = schedule();
    expect(iso(latestOccurrence(s, at("2026-03-10T09:00:00.000Z")))).toBe(
      "2026-03-10T09:00:00.000Z",
    );
    expect(iso(latestOccurrence(s, at("2026-03-10T08:59:59.999Z")))).toBe(
      "2026-03-09T09:00:00.000Z",
    );
    expect(iso(latestOccurrence(s, at("2026-03-10T23:00:00.000Z")))).toBe(
      "2026-03-10T09:00:00.000Z",
    );
  });

  it("a zone without daylight saving: Asia/Kolkata is UTC+05:30 all year", () => {
    const s = schedule({ timeZone: "Asia/Kolkata" });
    // 09:00 IST = 03:30 UTC
    expect(iso(latestOccurrence(s, at("2026-07-01T03:30:00.000Z")))).toBe(
      "2026-07-01T03:30:00.000Z",
    );
    expect(iso(latestOccurrence(s, at("2026-07-01T03:29:00.000Z")))).toBe(
      "2026-06-30T03:30:00.000Z",
    );
    // the local date is already tomorrow in Kolkata while UTC is still today
    expect(iso(latestOccurrence(s, at("2026-07-01T20:00:00.000Z")))).toBe(
      "2026-07-01T03:30:00.000Z",
    );
  });

  it("Europe/Berlin across the spring change: 09:00 is 08:00 UTC before, 07:00 UTC after", () => {
    const s = schedule({ timeZone: "Europe/Berlin" });
    // clocks go 02:00 → 03:00 on Sunday 2026-03-29
    expect(iso(latestOccurrence(s, at("2026-03-28T12:00:00.000Z")))).toBe(
      "2026-03-28T08:00:00.000Z",
    );
    expect(iso(latestOccurrence(s, at("2026-03-29T12:00:00.000Z")))).toBe(
      "2026-03-29T07:00:00.000Z",
    );
    // on the day itself, 07:30 UTC is 09:30 CEST: today's 09:00 is past
    expect(iso(latestOccurrence(s, at("2026-03-29T07:30:00.000Z")))).toBe(
      "2026-03-29T07:00:00.000Z",
    );
  });

  it("a time the spring change skips runs right after the gap; a time the autumn change repeats runs once, the first time", () => {
    const skipped = schedule({ timeZone: "Europe/Berlin", hour: 2, minute: 30 });
    // 02:30 does not exist on 2026-03-29: it runs at 03:30 CEST (01:30 UTC)
    expect(iso(latestOccurrence(skipped, at("2026-03-29T06:00:00.000Z")))).toBe(
      "2026-03-29T01:30:00.000Z",
    );
    // 02:30 happens twice on 2026-10-25 (CEST, then CET): the first one
    expect(iso(latestOccurrence(skipped, at("2026-10-25T06:00:00.000Z")))).toBe(
      "2026-10-25T00:30:00.000Z",
    );
    expect(iso(latestOccurrence(skipped, at("2026-10-25T01:00:00.000Z")))).toBe(
      "2026-10-25T00:30:00.000Z",
    );
  });

  it("America/New_York across its own change (second Sunday of March)", () => {
    const s = schedule({ timeZone: "America/New_York", hour: 8, minute: 15 });
    expect(iso(latestOccurrence(s, at("2026-03-07T20:00:00.000Z")))).toBe(
      "2026-03-07T13:15:00.000Z",
    );
    expect(iso(latestOccurrence(s, at("2026-03-08T20:00:00.000Z")))).toBe(
      "2026-03-08T12:15:00.000Z",
    );
  });

  it("weekly: the last such weekday at that time, this week or the one before", () => {
    // Monday 09:00 Berlin; 2026-03-23 is a Monday (CET), 2026-03-30 a Monday (CEST)
    const s = schedule({ cadence: "weekly", weekday: 1, timeZone: "Europe/Berlin" });
    expect(iso(latestOccurrence(s, at("2026-03-25T12:00:00.000Z")))).toBe(
      "2026-03-23T08:00:00.000Z",
    );
    expect(iso(latestOccurrence(s, at("2026-03-30T06:59:00.000Z")))).toBe(
      "2026-03-23T08:00:00.000Z",
    );
    expect(iso(latestOccurrence(s, at("2026-03-30T07:00:00.000Z")))).toBe(
      "2026-03-30T07:00:00.000Z",
    );
  });
});

describe("nextOccurrence", () => {
  it("is the first scheduled time after now", () => {
    const s = schedule({ timeZone: "Europe/Berlin" });
    expect(iso(nextOccurrence(s, at("2026-03-28T08:00:00.000Z")))).toBe("2026-03-29T07:00:00.000Z");
    const weekly = schedule({ cadence: "weekly", weekday: 1, timeZone: "Europe/Berlin" });
    expect(iso(nextOccurrence(weekly, at("2026-03-25T12:00:00.000Z")))).toBe(
      "2026-03-30T07:00:00.000Z",
    );
  });
});

describe("dueOccurrence: is a digest owed now, and which one", () => {
  const s = schedule({ timeZone: "Europe/Berlin", setAt: "2026-03-01T10:00:00.000Z" });

  it("owes the occurrence just passed once, and not again after it ran", () => {
    const now = at("2026-03-10T08:00:30.000Z");
    const due = dueOccurrence(s, undefined, now);
    expect(iso(due)).toBe("2026-03-10T08:00:00.000Z");
    expect(dueOccurrence(s, due, now)).toBeUndefined();
    expect(dueOccurrence(s, due, now + 12 * HOUR)).toBeUndefined();
    expect(iso(dueOccurrence(s, due, now + DAY))).toBe("2026-03-11T08:00:00.000Z");
  });

  it("never owes an occurrence from before the schedule was set", () => {
    // set at 10:00 Berlin, the 09:00 of that day is not owed; the next morning's is
    const fresh = schedule({ timeZone: "Europe/Berlin", setAt: "2026-03-10T09:00:00.000Z" });
    expect(dueOccurrence(fresh, undefined, at("2026-03-10T09:00:01.000Z"))).toBeUndefined();
    expect(iso(dueOccurrence(fresh, undefined, at("2026-03-11T08:00:00.000Z")))).toBe(
      "2026-03-11T08:00:00.000Z",
    );
  });

  it("after three days down, only the latest missed occurrence is owed, once", () => {
    const lastRun = at("2026-03-10T08:00:00.000Z");
    const back = at("2026-03-13T10:30:00.000Z");
    const due = dueOccurrence(s, lastRun, back);
    expect(iso(due)).toBe("2026-03-13T08:00:00.000Z");
    expect(dueOccurrence(s, due, back + 5 * 60_000)).toBeUndefined();
  });

  it("weekly: a missed Monday is owed on Thursday, and nothing more until the next Monday", () => {
    const weekly = schedule({
      cadence: "weekly",
      weekday: 1,
      timeZone: "Europe/Berlin",
      setAt: "2026-03-01T00:00:00.000Z",
    });
    const thursday = at("2026-03-26T12:00:00.000Z");
    const due = dueOccurrence(weekly, at("2026-03-16T08:00:00.000Z"), thursday);
    expect(iso(due)).toBe("2026-03-23T08:00:00.000Z");
    expect(dueOccurrence(weekly, due, at("2026-03-30T06:59:00.000Z"))).toBeUndefined();
    expect(iso(dueOccurrence(weekly, due, at("2026-03-30T07:00:00.000Z")))).toBe(
      "2026-03-30T07:00:00.000Z",
    );
  });
});

describe("time zones and cron", () => {
  it("accepts IANA names in any case and gives them back canonical; refuses others", () => {
    expect(canonicalTimeZone("Europe/Berlin")).toBe("Europe/Berlin");
    expect(canonicalTimeZone("europe/berlin")).toBe("Europe/Berlin");
    expect(canonicalTimeZone("UTC")).toBe("UTC");
    expect(canonicalTimeZone("Mars/Olympus_Mons")).toBeUndefined();
    expect(canonicalTimeZone("")).toBeUndefined();
    expect(canonicalTimeZone("x".repeat(500))).toBeUndefined();
  });

  it("gives node-cron the schedule's minute, hour and weekday", () => {
    expect(cronOf(schedule({ hour: 9, minute: 5 }))).toBe("5 9 * * *");
    expect(cronOf(schedule({ cadence: "weekly", weekday: 1, hour: 17, minute: 30 }))).toBe(
      "30 17 * * 1",
    );
  });
});
