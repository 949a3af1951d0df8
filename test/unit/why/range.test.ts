import { describe, expect, it } from "vitest";
import { parseSince } from "../../../src/why/range.ts";

const NOW = Date.UTC(2026, 10, 25, 12);

describe("since", () => {
  it("defaults to 24 hours, and reads lengths and dates", () => {
    expect(parseSince([], NOW)).toEqual({ ok: true, sinceMs: NOW - 24 * 3600_000, label: "24h" });
    expect(parseSince(["7d"], NOW)).toMatchObject({
      sinceMs: NOW - 7 * 24 * 3600_000,
      label: "7d",
    });
    expect(parseSince(["90m"], NOW)).toMatchObject({ sinceMs: NOW - 90 * 60_000 });
    expect(parseSince(["2026-11-20"], NOW)).toMatchObject({ sinceMs: Date.UTC(2026, 10, 20) });
    expect(parseSince(["2026-11-24T08:30:00Z"], NOW)).toMatchObject({
      sinceMs: Date.UTC(2026, 10, 24, 8, 30),
    });
  });

  it("refuses what it cannot read, the future and more than 31 days, in words", () => {
    for (const words of [["yesterday"], ["7d", "3h"], ["2026-13-45"], ["2026-12-01"], ["40d"]]) {
      const parsed = parseSince(words, NOW);
      expect(parsed.ok, words.join(" ")).toBe(false);
      if (!parsed.ok) expect(parsed.problem.length).toBeGreaterThan(10);
    }
  });
});
