import { describe, expect, it } from "vitest";
import {
  isTimeZone,
  MAX_MUTE_DAYS,
  muteUntil,
  nextWeekdayNine,
  snoozeUntil,
} from "../../../src/model/hold-time.ts";

const utc = (text: string) => Date.parse(text);
const iso = (ms: number) => new Date(ms).toISOString();

describe("next weekday 09:00 in the user's time zone", () => {
  it.each([
    // [now (UTC), zone, expected (UTC), why]
    ["2026-11-23T08:00:00Z", "UTC", "2026-11-23T09:00:00.000Z", "Monday before nine: today"],
    ["2026-11-23T09:00:00Z", "UTC", "2026-11-24T09:00:00.000Z", "at nine sharp: the next day"],
    ["2026-11-24T10:00:00Z", "UTC", "2026-11-25T09:00:00.000Z", "Tuesday after nine: Wednesday"],
    ["2026-11-27T18:00:00Z", "UTC", "2026-11-30T09:00:00.000Z", "Friday evening: Monday"],
    ["2026-11-28T12:00:00Z", "UTC", "2026-11-30T09:00:00.000Z", "Saturday: Monday"],
    [
      "2026-11-28T17:00:00Z",
      "America/New_York",
      "2026-11-30T14:00:00.000Z",
      "Saturday noon in New York (UTC-5): Monday 09:00 EST",
    ],
    [
      "2026-11-27T20:00:00Z",
      "America/Los_Angeles",
      "2026-11-30T17:00:00.000Z",
      "Friday noon in Los Angeles: Monday 09:00 PST",
    ],
    [
      "2026-11-29T23:30:00Z",
      "Asia/Tokyo",
      "2026-11-30T00:00:00.000Z",
      "Sunday night in UTC is Monday 08:30 in Tokyo: Monday 09:00 there",
    ],
    [
      "2026-11-27T23:30:00Z",
      "Asia/Kolkata",
      "2026-11-30T03:30:00.000Z",
      "Friday night UTC is Saturday 05:00 in India (UTC+5:30): Monday 09:00 IST",
    ],
    [
      "2026-11-25T19:00:00Z",
      "Pacific/Auckland",
      "2026-11-25T20:00:00.000Z",
      "Wednesday UTC is Thursday 08:00 in Auckland (UTC+13, summer time): Thursday 09:00",
    ],
    [
      "2026-03-06T17:00:00Z",
      "America/New_York",
      "2026-03-09T13:00:00.000Z",
      "a weekend that moves New York to summer time: Monday 09:00 EDT (UTC-4)",
    ],
  ])("%s in %s → %s (%s)", (now, zone, expected) => {
    expect(iso(nextWeekdayNine(utc(now), zone))).toBe(expected);
  });

  it("tells a real time zone from a made-up one", () => {
    expect(isTimeZone("Europe/Paris")).toBe(true);
    expect(isTimeZone("Mars/Olympus_Mons")).toBe(false);
    expect(isTimeZone("")).toBe(false);
  });
});

describe("snooze lengths", () => {
  const now = utc("2026-11-23T11:24:00Z");
  it("counts 1h, 4h and 24h from now, and weekday from the zone", () => {
    expect(iso(snoozeUntil("1h", now, "UTC"))).toBe("2026-11-23T12:24:00.000Z");
    expect(iso(snoozeUntil("4h", now, "Asia/Tokyo"))).toBe("2026-11-23T15:24:00.000Z");
    expect(iso(snoozeUntil("24h", now, "UTC"))).toBe("2026-11-24T11:24:00.000Z");
    expect(iso(snoozeUntil("weekday", now, "Europe/Paris"))).toBe("2026-11-24T08:00:00.000Z");
  });
});

describe("mute lengths", () => {
  const now = utc("2026-11-23T11:24:00Z");
  it("counts days from now", () => {
    expect(muteUntil({ days: 1 }, now)).toEqual({ ok: true, untilMs: now + 86_400_000 });
    expect(muteUntil({ days: 7 }, now)).toEqual({ ok: true, untilMs: now + 7 * 86_400_000 });
  });

  it("ends a mute until a date as that day begins (UTC)", () => {
    expect(muteUntil({ until: "2026-12-01" }, now)).toEqual({
      ok: true,
      untilMs: utc("2026-12-01T00:00:00Z"),
    });
  });

  it("refuses a past date, today, a date that does not exist, and one too far", () => {
    for (const until of ["2026-11-22", "2026-11-23"]) {
      const result = muteUntil({ until }, now);
      expect(result.ok, until).toBe(false);
      if (!result.ok) expect(result.problem).toMatch(/after today/);
    }
    const bad = muteUntil({ until: "2026-02-30" }, now);
    expect(bad).toMatchObject({ ok: false, problem: expect.stringMatching(/YYYY-MM-DD/) });
    const far = muteUntil({ until: "2027-06-01" }, now);
    expect(far).toMatchObject({ ok: false, problem: expect.stringContaining(`${MAX_MUTE_DAYS}`) });
    expect(muteUntil({ days: 0 }, now).ok).toBe(false);
    expect(muteUntil({ days: MAX_MUTE_DAYS + 1 }, now).ok).toBe(false);
  });
});
