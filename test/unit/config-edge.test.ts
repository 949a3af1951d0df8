import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";

/** EDGE_UNHEALTHY_GRACE and EDGE_SITE_TAG (issue 39): defaults, values, and clear refusals. */

const base = {
  SLACK_BOT_TOKEN: "xoxb-test-bot-token",
  SLACK_SIGNING_SECRET: "signing-secret-value",
  PALETTE_API_KEY: "palette-api-key-value",
};

function messageOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("the edge fleet's settings", () => {
  it("default to a 2-minute grace and the `site` tag", () => {
    expect(loadConfig(base).edge).toEqual({ unhealthyGraceMs: 120_000, siteTag: "site" });
  });

  it("read minutes and a tag key", () => {
    const config = loadConfig({ ...base, EDGE_UNHEALTHY_GRACE: "0", EDGE_SITE_TAG: " store " });
    expect(config.edge).toEqual({ unhealthyGraceMs: 0, siteTag: "store" });
    expect(loadConfig({ ...base, EDGE_UNHEALTHY_GRACE: "15" }).edge.unhealthyGraceMs).toBe(900_000);
    // empty is unset, as for every variable
    expect(loadConfig({ ...base, EDGE_SITE_TAG: "" }).edge.siteTag).toBe("site");
  });

  it.each([
    [{ EDGE_UNHEALTHY_GRACE: "-1" }, "EDGE_UNHEALTHY_GRACE"],
    [{ EDGE_UNHEALTHY_GRACE: "1.5" }, "whole number of minutes"],
    [{ EDGE_UNHEALTHY_GRACE: "2m" }, "number of minutes"],
    [{ EDGE_UNHEALTHY_GRACE: "1441" }, "at most 1440"],
    [{ EDGE_SITE_TAG: "site:store" }, "EDGE_SITE_TAG"],
    [{ EDGE_SITE_TAG: "a b" }, "EDGE_SITE_TAG"],
  ])("refuses %o with a message naming it", (env, expected) => {
    expect(messageOf({ ...base, ...env })).toContain(expected);
  });
});
