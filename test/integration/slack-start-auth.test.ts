import { afterEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/access/types.ts";
import { systemClock } from "../../src/clock.ts";
import type { Logger } from "../../src/log.ts";
import { silentLogger } from "../../src/log.ts";
import { Secret } from "../../src/secret.ts";
import { createSlackApp, type RunningSlackApp } from "../../src/slack/app.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";

/**
 * Slack refusing the token (`invalid_auth`) at start-up, over real HTTP to the fake Slack: a
 * refusal that passes (Slack's incident, the chaos run's window) is waited out, a few tries with
 * backoff, and the app starts; one that persists fails start-up with one clear line.
 */

let fake: FakeSlack | undefined;
let app: RunningSlackApp | undefined;

afterEach(async () => {
  await app?.stop().catch(() => undefined);
  app = undefined;
  await fake?.close();
  fake = undefined;
});

/** the silent logger, but its warn and info lines kept */
function recording(into: string[]): Logger {
  const logger = Object.create(silentLogger) as Logger & Record<string, unknown>;
  logger.warn = ((_fields: unknown, message?: string) => void into.push(String(message))) as never;
  logger.info = ((_fields: unknown, message?: string) => void into.push(String(message))) as never;
  logger.child = (() => logger) as never;
  return logger;
}

async function appOn(slack: FakeSlack, logger: Logger): Promise<RunningSlackApp> {
  const db = await openSqlite(":memory:");
  return createSlackApp({
    slack: {
      botToken: new Secret("xoxb-start-auth"),
      signingSecret: new Secret("signing-secret"),
      apiUrl: slack.apiUrl,
      mode: "http",
    },
    commandDeps: {
      palette: {} as never,
      db,
      audit: new AuditLog(db, systemClock),
      policy: allowAll,
      clock: systemClock,
      logger,
      projects: [],
      consoleUrl: "https://console.example.com/",
    },
    logger,
    // the waits are the code's to choose; the test only shortens them
    startRetryDelaysMs: [5, 5, 5],
    startAuthRetryDelaysMs: [5, 5, 5],
    changeSchedule: () => ({ stop() {} }),
  });
}

const refuse = () => ({ body: { ok: false, error: "invalid_auth" } });

describe("Slack's invalid_auth at start-up", () => {
  it("refused twice, then accepted: the app starts, and the retries are logged", async () => {
    fake = await startFakeSlack();
    let refusals = 2;
    fake.on("auth.test", () => (refusals-- > 0 ? refuse() : undefined));
    const lines: string[] = [];
    app = await appOn(fake, recording(lines));
    const { port } = await app.start(0);
    expect(port).toBeGreaterThan(0);
    expect(fake.callsTo("auth.test")).toHaveLength(3);
    expect(lines.filter((line) => line.includes("trying again"))).toHaveLength(2);
    expect(lines).toContain("Slack accepted the token after refusing it");
  });

  it("refused every time: start-up fails after the last try, with a clear line", async () => {
    fake = await startFakeSlack();
    fake.on("auth.test", refuse);
    app = await appOn(fake, silentLogger);
    await expect(app.start(0)).rejects.toThrow(
      /^SLACK_BOT_TOKEN: Slack's auth\.test failed \(invalid_auth\) on 4 tries over 0 s; check the token and SLACK_API_URL$/,
    );
    expect(fake.callsTo("auth.test")).toHaveLength(4);
  });

  it("a refusal that is no passing trouble (account_inactive) is not waited out", async () => {
    fake = await startFakeSlack();
    fake.on("auth.test", () => ({ body: { ok: false, error: "account_inactive" } }));
    app = await appOn(fake, silentLogger);
    await expect(app.start(0)).rejects.toThrow("(account_inactive); check the token");
    expect(fake.callsTo("auth.test")).toHaveLength(1);
  });
});
