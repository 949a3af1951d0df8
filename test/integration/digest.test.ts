import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningBot, startBot } from "../../src/app/bot.ts";
import { ManualClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/log.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { fakeDigestScheduler } from "../support/fake-digest-scheduler.ts";
import { type FakeSlack, type RecordedCall, startFakeSlack } from "../support/fake-slack.ts";
import { blocksText } from "../support/reply-text.ts";
import { postSigned, slashCommandBody } from "../support/slack-request.ts";
import { until } from "../support/start-process-harness.ts";

/**
 * The scheduled channel digest end to end: the bot as `palette-chatops start` assembles it
 * (src/app/bot.ts, HTTP mode) against the Palette simulator and the fake Slack, signed slash
 * commands, a ManualClock and a scheduler whose node-cron ticks the test fires. The store is a
 * real SQLite file, so restarts are restarts.
 */

const SECRET = "digest-signing-secret";
const CHANNEL = "C0DIGEST";
const ALLOWED = "U0ALLOWED";
const OUTSIDER = "U0OUTSIDER";
/** a schedule that never fires during a test: the test runs the polls it needs by start-up */
const NEVER = "0 0 1 1 *";
// 2026-03-10 08:00 in Berlin (CET, UTC+1)
const START = Date.parse("2026-03-10T07:00:00.000Z");

describe("the channel digest, scheduled, across restarts", () => {
  let sim: RunningSimulator;
  let fake: FakeSlack;
  const dir = mkdtempSync(join(tmpdir(), "digest-"));
  const stateDb = join(dir, "state.sqlite");
  const clock = new ManualClock(START);
  let bot: RunningBot | undefined;
  let port = 0;
  let sequence = 0;

  beforeAll(async () => {
    sim = await startSimulator({ clusters: 12, projects: 1, seed: 5 });
    fake = await startFakeSlack();
  });
  afterAll(async () => {
    await bot?.stop();
    await fake?.close();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(cron: ReturnType<typeof fakeDigestScheduler>): Promise<RunningBot> {
    const config = loadConfig({
      SLACK_BOT_TOKEN: "xoxb-digest-test",
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: fake.apiUrl,
      PALETTE_API_URL: sim.url,
      PALETTE_API_KEY: sim.credentials.apiKey,
      PALETTE_PROJECTS: sim.control.projects().join(","),
      STATE_DB: stateDb,
      PORT: "0",
      POLL_SCHEDULE: NEVER,
      RECONCILE_SCHEDULE: NEVER,
      ALLOW_SUBSCRIBE: ALLOWED,
    });
    const running = await startBot(config, silentLogger, clock, {
      digestScheduler: cron.scheduler,
    });
    port = running.port!;
    return running;
  }

  /** a signed `/palette <text>` from `user` in the channel; resolves with its one answer */
  async function slash(text: string, user: string): Promise<RecordedCall> {
    const id = `digest${++sequence}`;
    const sent = await postSigned(
      `http://127.0.0.1:${port}/slack/events`,
      SECRET,
      slashCommandBody({
        text,
        userId: user,
        channelId: CHANNEL,
        responseUrl: `${fake.url}/response/${id}`,
      }),
    );
    expect(sent.status).toBe(200);
    return until(`the answer to /palette ${text}`, () =>
      fake.callsTo("response").find((call) => call.body._responseId === id),
    );
  }

  /** what the store file says, read beside the bot (WAL lets both in) */
  function query<T>(sql: string): T[] {
    const db = new Database(stateDb, { readonly: true });
    try {
      return db.prepare(sql).all() as T[];
    } finally {
      db.close();
    }
  }
  const digestPosts = () =>
    fake
      .callsTo("chat.postMessage")
      .filter(
        (call) =>
          call.body.channel === CHANNEL &&
          blocksText((call.body.blocks ?? []) as never).includes("Daily digest"),
      );
  const outboxSettled = () =>
    query<{ n: number }>(
      "SELECT COUNT(*) AS n FROM notify_outbox WHERE sent_at IS NULL AND parked_reason IS NULL",
    )[0]!.n === 0;

  it("is set by a signed command, posted once at 09:00 Berlin, once after a missed 09:00, and never twice", async () => {
    let cron = fakeDigestScheduler();
    bot = await start(cron);
    await until(
      "the first poll",
      () => query<{ n: number }>("SELECT COUNT(*) AS n FROM notify_snapshots")[0]!.n > 0,
    );
    expect((await slash("subscribe", ALLOWED)).body.response_type).toBe("in_channel");

    // outside ALLOW_SUBSCRIBE: refused, privately, and nothing is stored
    const refused = await slash("digest daily 09:00 Europe/Berlin", OUTSIDER);
    expect(refused.body.response_type).toBe("ephemeral");
    expect(blocksText(refused.body.blocks as never)).toContain(
      "You may not change this channel's digest",
    );
    expect(query("SELECT * FROM notify_digest_schedules")).toEqual([]);

    const set = await slash("digest daily 09:00 Europe/Berlin", ALLOWED);
    expect(set.body.response_type).toBe("in_channel");
    expect(blocksText(set.body.blocks as never)).toContain("daily at 09:00 (Europe/Berlin)");
    expect(
      query("SELECT channel, cadence, time, time_zone, set_by FROM notify_digest_schedules"),
    ).toEqual([
      {
        channel: CHANNEL,
        cadence: "daily",
        time: "09:00",
        time_zone: "Europe/Berlin",
        set_by: ALLOWED,
      },
    ]);
    // the command re-armed node-cron at once, in the schedule's zone
    expect(cron.armed()).toEqual(["0 9 * * *|Europe/Berlin"]);

    // a preview is open to everyone and private: nothing reaches the channel
    const preview = await slash("digest now", OUTSIDER);
    expect(preview.body.response_type).toBe("ephemeral");
    expect(blocksText(preview.body.blocks as never)).toContain("Digest preview: 12 clusters");

    // 08:59 Berlin: a tick finds nothing owed
    clock.set(Date.parse("2026-03-10T07:59:00.000Z"));
    await cron.fire();
    // 09:00:30 Berlin: owed; however many ticks look, one digest
    clock.set(Date.parse("2026-03-10T08:00:30.000Z"));
    await cron.fire();
    await cron.fire();
    await until("the digest in the channel", () => digestPosts().length === 1);
    await until("the outbox drained", outboxSettled);
    const [posted] = digestPosts();
    expect(blocksText(posted!.body.blocks as never)).toContain("Daily digest: 12 clusters");
    expect(
      fake
        .callsTo("chat.postMessage")
        .some((c) => JSON.stringify(c.body).includes("Digest preview")),
    ).toBe(false);

    // down over the next 09:00; started again at 10:00 Berlin: the missed digest, once
    await bot.stop();
    bot = undefined;
    clock.set(Date.parse("2026-03-11T09:00:00.000Z"));
    cron = fakeDigestScheduler();
    bot = await start(cron);
    await until("the missed digest", () => digestPosts().length === 2);
    await until("the outbox drained", outboxSettled);
    expect(query("SELECT occurrence FROM notify_digest_runs ORDER BY occurrence")).toEqual([
      { occurrence: "2026-03-10T08:00:00.000Z" },
      { occurrence: "2026-03-11T08:00:00.000Z" },
    ]);

    // a second restart owes nothing
    await bot.stop();
    bot = undefined;
    clock.advance(5 * 60_000);
    cron = fakeDigestScheduler();
    bot = await start(cron);
    await cron.fire();
    await until("the outbox drained", outboxSettled);
    expect(
      query<{ n: number }>(
        "SELECT COUNT(*) AS n FROM notify_outbox WHERE payload LIKE '%\"channelDigest\"%'",
      )[0]!.n,
    ).toBe(2);
    expect(digestPosts()).toHaveLength(2);

    // the audit trail names who tried and who set it
    expect(
      query("SELECT user_id, action, outcome FROM audit WHERE action LIKE 'digest%' ORDER BY id"),
    ).toEqual([
      { user_id: OUTSIDER, action: "digest-set", outcome: "denied" },
      { user_id: ALLOWED, action: "digest-set", outcome: "created" },
    ]);
  }, 60_000);
});
