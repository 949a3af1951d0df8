import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";

const base = {
  SLACK_BOT_TOKEN: "xoxb-test-bot-token",
  SLACK_SIGNING_SECRET: "signing-secret-value",
  PALETTE_API_KEY: "palette-api-key-value",
};

function errorOf(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("ALLOW_AUDIT and AUDIT_RETENTION_DAYS", () => {
  it("default to nobody and 400 days", () => {
    const config = loadConfig(base);
    expect(config.allowAudit).toEqual([]);
    expect(config.auditRetentionDays).toBe(400);
  });

  it("read a list of Slack IDs and a whole number of days", () => {
    const config = loadConfig({
      ...base,
      ALLOW_AUDIT: "U0AUDITOR1, S0SECURITY",
      AUDIT_RETENTION_DAYS: "30",
    });
    expect(config.allowAudit).toEqual(["U0AUDITOR1", "S0SECURITY"]);
    expect(config.auditRetentionDays).toBe(30);
  });

  it.each([
    ["0", "at least 1 day"],
    ["-5", "at least 1 day"],
    ["1.5", "whole number of days"],
    ["forever", "number of days"],
    ["36501", "at most 36500"],
  ])("refuse AUDIT_RETENTION_DAYS=%s in one line", (value, says) => {
    const error = errorOf({ ...base, AUDIT_RETENTION_DAYS: value });
    expect(error.variable).toBe("AUDIT_RETENTION_DAYS");
    expect(error.message).toContain(says);
    expect(error.message).not.toContain("\n");
  });

  it("refuses an ALLOW_AUDIT entry that is not a Slack ID", () => {
    expect(errorOf({ ...base, ALLOW_AUDIT: "alice@example.com" }).variable).toBe("ALLOW_AUDIT");
  });
});

describe("ALLOW_FREEZE", () => {
  it("is empty when unset (the policy then reads it as whoever may make some change)", () => {
    expect(loadConfig(base).allowFreeze).toEqual([]);
  });

  it("reads Slack IDs and refuses what is not one", () => {
    expect(loadConfig({ ...base, ALLOW_FREEZE: "U0ONCALL1, S0RELEASE" }).allowFreeze).toEqual([
      "U0ONCALL1",
      "S0RELEASE",
    ]);
    expect(errorOf({ ...base, ALLOW_FREEZE: "release-team" }).variable).toBe("ALLOW_FREEZE");
  });
});

describe("CHANGES_RETENTION_DAYS, ALLOW_WHY and WHY_SHOW_EMAIL (issue 31)", () => {
  it("default to 400 days, everyone, and names rather than e-mails", () => {
    const config = loadConfig(base);
    expect(config.changesRetentionDays).toBe(400);
    expect(config.allowWhy).toEqual(["*"]);
    expect(config.whyShowEmail).toBe(false);
  });

  it("read days, a list of Slack IDs and true", () => {
    const config = loadConfig({
      ...base,
      CHANGES_RETENTION_DAYS: "90",
      ALLOW_WHY: "U0ONCALL1, S0SRE",
      WHY_SHOW_EMAIL: "true",
    });
    expect(config.changesRetentionDays).toBe(90);
    expect(config.allowWhy).toEqual(["U0ONCALL1", "S0SRE"]);
    expect(config.whyShowEmail).toBe(true);
  });

  it.each([
    ["CHANGES_RETENTION_DAYS", "0", "at least 1 day"],
    ["CHANGES_RETENTION_DAYS", "36501", "at most 36500"],
    ["WHY_SHOW_EMAIL", "yes", "true or false"],
    ["ALLOW_WHY", "alice@example.com", ""],
  ])("refuse %s=%s in one line", (variable, value, says) => {
    const error = errorOf({ ...base, [variable]: value });
    expect(error.variable).toBe(variable);
    expect(error.message).toContain(says);
    expect(error.message).not.toContain("\n");
  });
});
