import { afterAll, describe, expect, it } from "vitest";
import { type RunningBot, startBot } from "../../src/app/bot.ts";
import { systemTimers, type Timers } from "../../src/app/leader.ts";
import { ManualClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/log.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { ChangeStore } from "../../src/store/changes.ts";
import { openPostgres } from "../../src/store/postgres.ts";
import { migratePostgres } from "../../src/store/postgres-migrate.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import { freshDatabase, POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";
import { until } from "../support/start-process-harness.ts";

/**
 * AUDIT_RETENTION_DAYS with two replicas on one PostgreSQL database, wired as `start` wires
 * them (src/app/bot.ts): only the holder of the leader lease deletes old audit rows (and ended
 * changes past CHANGES_RETENTION_DAYS, open ones never); a follower
 * that would prune every 50 ms deletes nothing until it takes the lease over.
 */
const NEVER = "0 0 1 1 *";
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 25, 12);

/** /readyz 200: elected and its first poll committed (as bot-leader.test.ts waits) */
async function ready(bot: RunningBot): Promise<void> {
  await until("/readyz 200", async () => {
    const response = await fetch(`http://127.0.0.1:${bot.port}/readyz`);
    await response.body?.cancel();
    return response.status === 200;
  });
}

describe("audit retention across replicas (PostgreSQL)", () => {
  let sim: RunningSimulator | undefined;
  let fake: FakeSlack | undefined;
  const bots: RunningBot[] = [];
  let reader: SqlDb | undefined;

  afterAll(async () => {
    for (const bot of bots.splice(0)) await bot.stop().catch(() => {});
    await reader?.close();
    await fake?.close();
    await sim?.close();
  });

  it(
    "the lease holder prunes; a follower does not, until it holds the lease",
    async () => {
      sim = await startSimulator({ clusters: 2, projects: 1, seed: 11 });
      fake = await startFakeSlack();
      const { url } = await freshDatabase();
      reader = await openPostgres(url, { max: 2 });
      await migratePostgres(reader);
      const clock = new ManualClock(NOW);
      const audit = new AuditLog(reader, clock);
      const rowAged = async (days: number, target: string) => {
        clock.set(NOW - days * DAY);
        await audit.record({ userId: "W1", action: "ack", target, outcome: "granted" });
        clock.set(NOW);
      };
      const targets = async () => (await audit.recent(20)).map((row) => row.target).sort();
      await rowAged(45, "old: pruned by the first leader");
      await rowAged(3, "recent");
      // CHANGES_RETENTION_DAYS (issue 31): an ended change past it goes, an open one stays
      const changes = new ChangeStore(reader, clock);
      const changeAged = async (days: number, key: string, end: boolean) => {
        clock.set(NOW - days * DAY);
        const { record } = await changes.create({
          requestKey: key,
          plan: {
            verb: "delete",
            cluster: {
              uid: "c1",
              name: "web",
              projectUid: "p1",
              cloudType: "aws",
              state: "Running",
            },
          },
          requester: "U1",
          channel: "C1",
          status: "executing",
        });
        if (end) await changes.move(record.id, "executing", "failed");
        clock.set(NOW);
      };
      await changeAged(45, "old ended", true);
      await changeAged(45, "old open", false);
      await changeAged(3, "recent ended", true);
      const changeKeys = async () => (await changes.all()).map((c) => c.requestKey).sort();

      const config = (replica: string) =>
        loadConfig({
          SLACK_BOT_TOKEN: `xoxb-retention-${replica}`,
          SLACK_SIGNING_SECRET: "retention-signing-secret",
          SLACK_API_URL: fake!.apiUrl,
          PALETTE_API_URL: sim!.url,
          PALETTE_API_KEY: sim!.credentials.apiKey,
          STATE_DB: url,
          PORT: "0",
          POLL_SCHEDULE: NEVER,
          RECONCILE_SCHEDULE: NEVER,
          LEADER_LEASE_TTL_MS: "1500",
          LEADER_RENEW_MS: "200",
          AUDIT_RETENTION_DAYS: "30",
          CHANGES_RETENTION_DAYS: "30",
        });
      // the leader prunes at its election, then (here) not again for an hour
      const leader = await startBot(config("a"), silentLogger, clock, {
        replicaId: "replica-a",
        auditPruneEveryMs: 3_600_000,
      });
      bots.push(leader);
      // its first poll (run at election) done before anything stops it mid-write
      await ready(leader);
      await until(
        "the leader's prune at election",
        async () => !(await targets()).includes("old: pruned by the first leader"),
      );
      expect(await changeKeys()).toEqual(["old open", "recent ended"]);
      // a follower that would prune every 50 ms; its lease timers (real ones) are counted, so
      // the test knows when it has asked for the lease again
      let leaseRounds = 0;
      const countedTimers: Timers = {
        after: (delayMs, task) =>
          systemTimers.after(delayMs, () => {
            leaseRounds += 1;
            task();
          }),
      };
      const follower = await startBot(config("b"), silentLogger, clock, {
        replicaId: "replica-b",
        auditPruneEveryMs: 50,
        leaseTimers: countedTimers,
      });
      bots.push(follower);
      await rowAged(40, "old: left alone by the follower");
      // not a while: two of the follower's lease rounds after the row was written (the second is
      // armed only once the first renewal has finished), so it has asked for the lease since,
      // been refused, and stayed a follower, the step that would have started its pruning
      const roundsBefore = leaseRounds;
      await until("two of the follower's lease rounds", () => leaseRounds >= roundsBefore + 2);
      expect(await targets()).toEqual(["old: left alone by the follower", "recent"]);

      // the leader stops and releases the lease: the follower is elected and prunes
      await leader.stop();
      bots.splice(bots.indexOf(leader), 1);
      await until(
        "the new leader's prune",
        async () => !(await targets()).includes("old: left alone by the follower"),
        10_000,
      );
      expect(await targets()).toEqual(["recent"]);
      await ready(follower);
    },
    POSTGRES_SETUP_TIMEOUT_MS,
  );
});
