import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.ts";
import {
  MAX_REQUESTS_PER_MINUTE,
  MIN_REQUESTS_PER_MINUTE,
  sweepRequestsPerMinute,
} from "../../../src/radar/sweep.ts";

/**
 * The radar's pace (issue 31 item 13): by default enough requests for one pass over the fleet a
 * day, whatever its size; RADAR_CALLS_PER_MINUTE caps it.
 */

const DAY_MINUTES = 1_440;
const env = {
  SLACK_BOT_TOKEN: "xoxb-test-bot-token",
  SLACK_SIGNING_SECRET: "signing-secret-value",
  PALETTE_API_KEY: "palette-api-key-value",
};

describe("the radar's pace", () => {
  it.each([0, 24, 1_000, 10_000, 50_000, 100_000])(
    "reads %i clusters at least once a day at the default cap",
    (fleet) => {
      const cap = loadConfig(env).radar.callsPerMinute;
      const rate = sweepRequestsPerMinute(fleet, cap);
      expect(rate).toBeGreaterThanOrEqual(MIN_REQUESTS_PER_MINUTE);
      expect(rate).toBeLessThanOrEqual(MAX_REQUESTS_PER_MINUTE);
      // three requests a cluster when Palette answers at once: a pass within the day
      expect((fleet * 3) / rate).toBeLessThanOrEqual(DAY_MINUTES);
    },
  );

  it("never goes past RADAR_CALLS_PER_MINUTE, and 0 turns the sweep off", () => {
    const config = loadConfig({ ...env, RADAR_CALLS_PER_MINUTE: "40" });
    expect(sweepRequestsPerMinute(50_000, config.radar.callsPerMinute)).toBe(40);
    expect(sweepRequestsPerMinute(24, config.radar.callsPerMinute)).toBe(30);
    expect(sweepRequestsPerMinute(50_000, 0)).toBe(0);
  });
});
