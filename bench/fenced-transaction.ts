/**
 * The longest fenced transaction on PostgreSQL against the lease's margin (`npm run bench --
 * fenced-transaction`; issue 37, item 7). Every write transaction of the leader's singletons
 * first reads the lease row `FOR SHARE` (src/store/lease.ts), which the leader's own renewal (an
 * UPDATE of that row) waits for: a fenced transaction longer than LEADER_LEASE_TTL_MS −
 * LEADER_RENEW_MS (15 s − 5 s by default) holds the renewal past the lease's expiry, and another
 * replica takes over.
 *
 * The poller (src/notify/poll/poll.ts) in this process on an embedded PostgreSQL (the test
 * server: loopback TCP, fsync off), 50,000 clusters (FENCED_BENCH_CLUSTERS) in 3 projects with a
 * channel subscribed to all, from a fake Palette answering at once (Palette's pace is not what
 * is measured). Cycles: the first poll (a reconciliation that writes every snapshot), then
 * STEADY_CYCLES incremental ones each with 1% of the clusters moved, then a second
 * reconciliation. Measured: each fenced transaction's time from asking for the connection to its
 * COMMIT, and, beside the poll on another connection, the renewal (tryAcquire of the live lease)
 * every 250 ms: its longest wait is the margin actually eaten.
 */
import { pathToFileURL } from "node:url";
import { systemClock } from "../src/clock.ts";
import { silentLogger } from "../src/log.ts";
import { createPoller } from "../src/notify/poll/poll.ts";
import { leaseFor, SINGLETONS_LEASE } from "../src/store/lease.ts";
import { openPostgres } from "../src/store/postgres.ts";
import { migratePostgres } from "../src/store/postgres-migrate.ts";
import type { SqlDb, SqlExecutor } from "../src/store/sql.ts";
import { SubscriptionStore } from "../src/store/subscriptions.ts";
import { type PollCluster, pollPalette } from "../test/support/fake-palette.ts";
import { createDatabase, startPostgres } from "../test/support/postgres-global-setup.ts";

const TTL_MS = 15_000;
const RENEW_MS = 5_000;
const STEADY_CYCLES = 5;
const PROJECTS = ["p-1", "p-2", "p-3"];

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0);
};

export async function runFencedTransactionBench(
  clusterCount = Number(process.env.FENCED_BENCH_CLUSTERS ?? 50_000),
) {
  const postgres = await startPostgres();
  try {
    await createDatabase(postgres, "fenced");
    const url = `postgres://postgres:${postgres.password}@127.0.0.1:${postgres.port}/fenced`;
    const db = await openPostgres(url, { max: 4 });
    const renewer = await openPostgres(url, { max: 1 });
    try {
      await migratePostgres(db);
      await new SubscriptionStore(db, systemClock).add({
        channel: "C0FENCED",
        kind: "all",
        createdBy: "U0BENCH",
      });
      const lease = leaseFor(db, SINGLETONS_LEASE);
      const token = (await lease.tryAcquire("bench-leader", TTL_MS, Date.now()))!;

      // which transactions were fenced, and how long each took, by kind of cycle
      const fencedTx = new WeakSet<SqlExecutor>();
      const fence = async (tx: SqlExecutor) => {
        fencedTx.add(tx);
        await lease.assertFenced(tx, token, Date.now());
      };
      let cycleKind = "reconcile";
      const durations: Record<string, number[]> = {};
      const timed: SqlDb = {
        ...db,
        async transaction(work) {
          const started = performance.now();
          let used: SqlExecutor | undefined;
          const result = await db.transaction((tx) => {
            used = tx;
            return work(tx);
          });
          if (used && fencedTx.has(used)) {
            const list = durations[cycleKind] ?? [];
            list.push(performance.now() - started);
            durations[cycleKind] = list;
          }
          return result;
        },
      };

      // the leader's renewal beside the poll, on its own connection, as the elector runs it
      const renewalWaits: number[] = [];
      let renewing = true;
      const renewals = (async () => {
        const renewLease = leaseFor(renewer, SINGLETONS_LEASE);
        while (renewing) {
          const asked = performance.now();
          const granted = await renewLease.tryAcquire("bench-leader", TTL_MS, Date.now());
          if (granted !== token) throw new Error(`the renewal lost the lease (${granted})`);
          renewalWaits.push(performance.now() - asked);
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      })();

      const clusters: PollCluster[] = Array.from({ length: clusterCount }, (_, i) => ({
        uid: `c-${String(i).padStart(6, "0")}`,
        project: PROJECTS[i % PROJECTS.length]!,
        state: "Running",
        health: "Healthy",
      }));
      const poller = createPoller({
        palette: pollPalette(clusters),
        db: timed,
        clock: systemClock,
        logger: silentLogger,
        projects: PROJECTS,
        fence,
      });
      const cycles: Array<{
        kind: string;
        ok: boolean;
        changes: number;
        outboxRows: number;
        ms: number;
      }> = [];
      const run = async () => {
        const result = await poller.runCycle();
        if (!result.ok) throw new Error(`a ${result.kind} cycle failed: ${result.error}`);
        cycles.push({
          kind: result.kind,
          ok: result.ok,
          changes: result.changes,
          outboxRows: result.outboxRows,
          ms: Math.round(result.durationMs),
        });
      };
      cycleKind = "reconcile";
      await run();
      cycleKind = "incremental";
      for (let cycle = 0; cycle < STEADY_CYCLES; cycle++) {
        // 1% of the fleet moves between polls
        for (let i = cycle; i < clusters.length; i += 100) {
          clusters[i]!.health = clusters[i]!.health === "Healthy" ? "UnHealthy" : "Healthy";
        }
        await run();
      }
      cycleKind = "reconcile";
      poller.requestReconcile();
      await run();
      renewing = false;
      await renewals;

      const all = Object.values(durations).flat();
      const longest = Math.round(Math.max(0, ...all));
      const marginMs = TTL_MS - RENEW_MS;
      return {
        bench: "fenced-transaction",
        node: process.version,
        setup: `poller in-process on embedded PostgreSQL (loopback, fsync off), ${clusterCount} clusters in ${PROJECTS.length} projects, one channel subscribed to all, fake Palette answering at once; a reconciliation, ${STEADY_CYCLES} incremental cycles with 1% moved each, a reconciliation; the leader's renewal every 250 ms on another connection`,
        clusters: clusterCount,
        cycles,
        fencedTransactions: Object.fromEntries(
          Object.entries(durations).map(([kind, values]) => [
            kind,
            {
              count: values.length,
              p50Ms: percentile(values, 50),
              maxMs: Math.round(Math.max(0, ...values)),
            },
          ]),
        ),
        longestFencedTransactionMs: longest,
        renewal: {
          samples: renewalWaits.length,
          p50Ms: percentile(renewalWaits, 50),
          maxWaitMs: Math.round(Math.max(0, ...renewalWaits)),
        },
        leaseMarginMs: marginMs,
        longestToMargin: Math.round((longest / marginMs) * 1000) / 1000,
      };
    } finally {
      await renewer.close();
      await db.close();
    }
  } finally {
    await postgres.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await runFencedTransactionBench(), null, 2));
}
