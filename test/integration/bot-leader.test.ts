import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningBot, startBot } from "../../src/app/bot.ts";
import { ManualClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/log.ts";
import type { DigestScheduler } from "../../src/notify/digest/channel-digest-job.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { DigestStore } from "../../src/store/digests.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import { sampleValue } from "../support/prometheus.ts";
import { until } from "../support/start-process-harness.ts";

/**
 * The leader lease as `palette-chatops start` wires it (src/app/bot.ts), on SQLite: one replica,
 * always the leader (token 1). /readyz and /metrics say so; the rest is as without a lease.
 */
const NEVER = "0 0 1 1 *";

describe("the bot's leader lease on SQLite", () => {
  let sim: RunningSimulator;
  let fake: FakeSlack;
  let bot: RunningBot | undefined;

  beforeAll(async () => {
    sim = await startSimulator({ clusters: 6, projects: 1, seed: 3 });
    fake = await startFakeSlack();
  });
  afterAll(async () => {
    await bot?.stop();
    await fake?.close();
    await sim?.close();
  });

  it("leads from its start: /readyz names it leader with token 1, /metrics has leader 1", async () => {
    const config = loadConfig({
      SLACK_BOT_TOKEN: "xoxb-leader-test",
      SLACK_SIGNING_SECRET: "leader-signing-secret",
      SLACK_API_URL: fake.apiUrl,
      PALETTE_API_URL: sim.url,
      PALETTE_API_KEY: sim.credentials.apiKey,
      PALETTE_PROJECTS: sim.control.projects().join(","),
      STATE_DB: ":memory:",
      PORT: "0",
      POLL_SCHEDULE: NEVER,
      RECONCILE_SCHEDULE: NEVER,
    });
    bot = await startBot(config, silentLogger, new ManualClock(), { replicaId: "pod-a/1/cafe" });
    const ops = `http://127.0.0.1:${bot.port}`;
    // ready once the first poll (run at election) has committed, as with one replica before
    const ready = await until("/readyz 200", async () => {
      const response = await fetch(`${ops}/readyz`);
      return response.status === 200 && ((await response.json()) as Record<string, unknown>);
    });
    expect(ready.leader).toEqual({
      role: "leader",
      replica: "pod-a/1/cafe",
      leader: "pod-a/1/cafe",
      token: 1,
      // the lease runs on the wall clock (LEADER_LEASE_TTL_MS, renewed every LEADER_RENEW_MS)
      leaseExpiresInSeconds: expect.any(Number),
    });
    const expiresIn = (ready.leader as { leaseExpiresInSeconds: number }).leaseExpiresInSeconds;
    expect(expiresIn).toBeGreaterThan(5);
    expect(expiresIn).toBeLessThanOrEqual(15);
    const text = await (await fetch(`${ops}/metrics`)).text();
    expect(sampleValue(text, "palette_chatops_leader")).toBe(1);
    expect(sampleValue(text, "palette_chatops_leader_lease_expires_in_seconds")).toBeGreaterThan(
      10,
    );
    await bot.stop();
    bot = undefined;
  });

  it("arms a digest schedule another replica set: the leader re-reads the schedules now and then", async () => {
    const dir = mkdtempSync(join(tmpdir(), "leader-digest-"));
    const stateDb = join(dir, "state.sqlite");
    const armed: string[] = [];
    const scheduler: DigestScheduler = {
      schedule(cron, timeZone) {
        armed.push(`${cron}|${timeZone}`);
        return { stop() {} };
      },
    };
    const config = loadConfig({
      SLACK_BOT_TOKEN: "xoxb-leader-test",
      SLACK_SIGNING_SECRET: "leader-signing-secret",
      SLACK_API_URL: fake.apiUrl,
      PALETTE_API_URL: sim.url,
      PALETTE_API_KEY: sim.credentials.apiKey,
      STATE_DB: stateDb,
      PORT: "0",
      POLL_SCHEDULE: NEVER,
      RECONCILE_SCHEDULE: NEVER,
    });
    bot = await startBot(config, silentLogger, new ManualClock(), {
      digestScheduler: scheduler,
      digestResyncMs: 50,
    });
    try {
      expect(armed).toEqual([]);
      // `/palette digest daily` answered by a follower: it writes the schedule, its own digest
      // job is not running, so only the leader's re-read can arm the timer
      const follower = await openSqlite(stateDb);
      await new DigestStore(follower).set({
        channel: "C0OTHER",
        cadence: "daily",
        hour: 9,
        minute: 0,
        timeZone: "Europe/Berlin",
        setBy: "U1",
        setAt: new Date().toISOString(),
      });
      await follower.close();
      await until("the leader to arm the schedule", () => armed.length > 0, 5_000);
      expect(armed).toEqual(["0 9 * * *|Europe/Berlin"]);
    } finally {
      await bot.stop();
      bot = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
