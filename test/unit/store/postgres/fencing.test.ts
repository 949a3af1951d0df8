import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../../../src/clock.ts";
import { silentLogger } from "../../../../src/log.ts";
import { createSender } from "../../../../src/notify/delivery/outbox-sender.ts";
import type { SlackPoster } from "../../../../src/notify/delivery/slack-port.ts";
import { createPoller } from "../../../../src/notify/poll/poll.ts";
import { FencedOut, type LeaderLease, leaseFor } from "../../../../src/store/lease.ts";
import { OutboxStore } from "../../../../src/store/outbox.ts";
import { openPostgres } from "../../../../src/store/postgres.ts";
import { migratePostgres } from "../../../../src/store/postgres-migrate.ts";
import type { SqlDb, SqlExecutor } from "../../../../src/store/sql.ts";
import { SubscriptionStore } from "../../../../src/store/subscriptions.ts";
import { type PollCluster, pollPalette } from "../../../support/fake-palette.ts";
import { freshDatabase, POSTGRES_SETUP_TIMEOUT_MS } from "../../../support/postgres.ts";

/**
 * Issue 12, fencing: two replicas' singletons on one PostgreSQL. The first leader's lease runs
 * out (a pause past its TTL, on the manual clock) and the second takes it over; the first,
 * waking late, must neither commit a poll nor mark a message sent.
 */
const TTL = 15_000;
const T0 = Date.UTC(2026, 0, 1);

let replicaA: SqlDb;
let replicaB: SqlDb;
let leaseNumber = 0;

beforeAll(async () => {
  const { url } = await freshDatabase();
  replicaA = await openPostgres(url, { max: 4 });
  replicaB = await openPostgres(url, { max: 4 });
  await migratePostgres(replicaA);
}, POSTGRES_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await replicaA?.close();
  await replicaB?.close();
});

/** a lease of its own per test; A leads, then pauses past its TTL and B takes over */
async function takeOver(clock: ManualClock) {
  leaseNumber += 1;
  const name = `singletons-${leaseNumber}`;
  const a = leaseFor(replicaA, name);
  const b = leaseFor(replicaB, name);
  const tokenA = (await a.tryAcquire("replica-a", TTL, clock.now()))!;
  const fenceA = (tx: SqlExecutor) => a.assertFenced(tx, tokenA, clock.now());
  const deposeA = async () => {
    clock.advance(TTL + 1);
    const tokenB = await b.tryAcquire("replica-b", TTL, clock.now());
    expect(tokenB).toBe(tokenA + 1);
    return tokenB!;
  };
  return { a, b, tokenA, fenceA, deposeA };
}

const fenceOf = (lease: LeaderLease, token: number, clock: ManualClock) => (tx: SqlExecutor) =>
  lease.assertFenced(tx, token, clock.now());

const outboxRows = (db: SqlDb) =>
  db.all<{ id: number; channel: string; sent_at: string | null }>(
    "SELECT id, channel, sent_at FROM notify_outbox ORDER BY id",
  );

describe("fenced singleton writes on PostgreSQL", () => {
  it("refuses a deposed leader's poll commit; the new leader's poll announces the change", async () => {
    const clock = new ManualClock(T0);
    const channel = `C-poll-${leaseNumber + 1}`;
    const { b, fenceA, deposeA } = await takeOver(clock);
    await new SubscriptionStore(replicaA, clock).add({ channel, kind: "all", createdBy: "U" });
    const project = `p-${leaseNumber}`;
    const clusters: PollCluster[] = [
      { uid: `a-${leaseNumber}`, project, state: "Running", health: "Healthy" },
    ];
    const poller = (db: SqlDb, fence: (tx: SqlExecutor) => Promise<void>) =>
      createPoller({
        palette: pollPalette(clusters),
        db,
        clock,
        logger: silentLogger,
        projects: [project],
        fence,
      });
    const pollerA = poller(replicaA, fenceA);
    const first = await pollerA.runCycle();
    expect(first.error).toBeUndefined();
    expect(first.ok).toBe(true);
    const rows = async () =>
      (
        await replicaB.all<{ kind: string }>(
          "SELECT kind FROM notify_outbox WHERE channel = ? ORDER BY id",
          [channel],
        )
      ).map((row) => row.kind);
    expect(await rows()).toEqual(["summary"]);

    // A pauses past its lease; B takes over; A wakes and polls a change: its commit is refused
    const tokenB = await deposeA();
    clusters[0]!.health = "UnHealthy";
    const late = await pollerA.runCycle();
    expect(late.ok).toBe(false);
    expect(late.error).toBe("this replica no longer leads: the commit was refused");
    expect(await rows()).toEqual(["summary"]);

    const pollerB = poller(replicaB, fenceOf(b, tokenB, clock));
    expect((await pollerB.runCycle()).ok).toBe(true);
    expect(await rows()).toEqual(["summary", "card"]);
    // these rows are this test's: the sender tests drain the same outbox
    await replicaB.run("DELETE FROM notify_outbox WHERE channel = ?", [channel]);
  });

  it("refuses a deposed leader's mark-sent, so the new leader's sender posts the row", async () => {
    const clock = new ManualClock(T0);
    const channel = `C-send-${leaseNumber + 1}`;
    const { b, fenceA, deposeA } = await takeOver(clock);
    await new OutboxStore(replicaA).add(
      { channel, kind: "post", payload: { text: "hello" } },
      new Date(clock.now()).toISOString(),
    );
    const posted: string[] = [];
    let release: (() => void) | undefined;
    const slackFor = (who: string, gate: boolean): SlackPoster => ({
      async postMessage(m) {
        // A's call hangs (the pause) until B has taken the lease
        if (gate) await new Promise<void>((resolve) => (release = resolve));
        posted.push(`${who} ${m.channel} ${m.text}`);
        return { ts: `${who}-ts` };
      },
      async update() {},
    });
    const senderA = createSender({
      db: replicaA,
      slack: slackFor("A", true),
      clock,
      logger: silentLogger,
      fence: fenceA,
      sleep: async (ms) => clock.advance(ms),
      random: () => 0,
    });
    const roundA = senderA.drainOnce();
    while (!release) await new Promise((resolve) => setTimeout(resolve, 5));
    const tokenB = await deposeA();
    release();
    await roundA;
    // A's post happened (it was on the wire), but its mark-sent was refused: the row is pending
    expect(posted).toEqual([`A ${channel} hello`]);
    const [row] = (await outboxRows(replicaB)).filter((r) => r.channel === channel);
    expect(row?.sent_at).toBeNull();

    const senderB = createSender({
      db: replicaB,
      slack: slackFor("B", false),
      clock,
      logger: silentLogger,
      fence: fenceOf(b, tokenB, clock),
      sleep: async (ms) => clock.advance(ms),
      random: () => 0,
    });
    await senderB.drainAll(5);
    expect(posted).toEqual([`A ${channel} hello`, `B ${channel} hello`]);
    const [after] = (await outboxRows(replicaB)).filter((r) => r.channel === channel);
    expect(after?.sent_at).not.toBeNull();
  });

  it("throws FencedOut from the fence itself once the lease moved on", async () => {
    const clock = new ManualClock(T0);
    const { fenceA, deposeA } = await takeOver(clock);
    await deposeA();
    await expect(replicaA.transaction((tx) => fenceA(tx))).rejects.toBeInstanceOf(FencedOut);
  });
});
