import { describe, expect, it } from "vitest";
import { configLines, runDoctor } from "../../../src/app/doctor.ts";
import { ManualClock } from "../../../src/clock.ts";
import { loadConfig } from "../../../src/config.ts";

/**
 * `kubectl create secret --from-env-file` keeps the quotes of `KEY="value"` inside the value (issue
 * 38 item 6): the doctor names the quotes, not the token's prefix, and never prints the value.
 */

const BOT_TOKEN = "xoxb-1111-2222-secretpart";
const BASE = {
  SLACK_BOT_TOKEN: BOT_TOKEN,
  SLACK_APP_TOKEN: "xapp-1-A1-secretpart",
  PALETTE_API_KEY: "key-value-1",
};

const linesFor = (env: Record<string, string>) => configLines(loadConfig(env), env);

describe("the doctor and quoted values", () => {
  it("names a quoted bot token's quotes instead of blaming its prefix, without printing it", () => {
    const env = { ...BASE, SLACK_BOT_TOKEN: `"${BOT_TOKEN}"` };
    const lines = linesFor(env);
    const quoted = lines.filter((line) => line.status !== "pass");
    expect(quoted).toHaveLength(1);
    expect(quoted[0]!.status).toBe("warn");
    expect(quoted[0]!.result).toMatch(/^SLACK_BOT_TOKEN has its value inside quotes/);
    expect(quoted[0]!.fix).toMatch(/--from-env-file/);
    const text = JSON.stringify(lines);
    expect(text).not.toContain("does not start with");
    expect(text).not.toContain("secretpart");
  });

  it("names every quoted variable, single quotes too, in one line", () => {
    const env = { ...BASE, SLACK_APP_TOKEN: "'xapp-1-A1-secretpart'", PALETTE_PROJECTS: '"p1,p2"' };
    const lines = linesFor(env).filter((line) => line.status !== "pass");
    expect(lines.map((line) => line.result)).toEqual([
      expect.stringMatching(/^SLACK_APP_TOKEN, PALETTE_PROJECTS have their value inside quotes/),
    ]);
  });

  it("still blames the prefix of a token that is the wrong one inside its quotes", () => {
    const lines = linesFor({ ...BASE, SLACK_BOT_TOKEN: '"xapp-wrong"' });
    expect(lines.filter((line) => line.status !== "pass").map((line) => line.result)).toEqual([
      expect.stringMatching(/^SLACK_BOT_TOKEN has its value inside quotes/),
      "SLACK_BOT_TOKEN does not start with xoxb-",
    ]);
  });

  it("says nothing of a quote inside a value, one quote, or a variable the bot does not read", () => {
    const lines = linesFor({
      ...BASE,
      PALETTE_API_KEY: 'ab"cd"',
      PALETTE_EMAIL: '"ops@example.com',
      SOMETHING_ELSE: '"quoted"',
    });
    expect(lines.filter((line) => line.status !== "pass")).toEqual([]);
  });

  it("names the quotes when a quoted value is why the environment does not parse", async () => {
    const report = await runDoctor({
      env: { ...BASE, PALETTE_API_URL: '"https://api.spectrocloud.com"' },
      clock: new ManualClock(0),
    });
    expect(report.exitCode).toBe(1);
    expect(report.lines.map((line) => line.check)).toEqual(["config", "config.quotes"]);
    expect(report.lines[1]!.result).toMatch(/^PALETTE_API_URL has its value inside quotes/);
  });
});
