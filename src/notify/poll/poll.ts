import cron, { type ScheduledTask } from "node-cron";
import { PaletteError, PaletteSchemaError } from "../../palette/errors.ts";
import { inBackground, inBulk } from "../../palette/priority.ts";
import { FencedOut } from "../../store/lease.ts";
import { SnapshotStore } from "../../store/snapshots.ts";
import { ReconcileStaging } from "../../store/staging.ts";
import { SubscriptionStore } from "../../store/subscriptions.ts";
import { alertKindsMemory } from "../alerts/alert-kinds.ts";
import { type CycleCommitDeps, commitCycle } from "./cycle-commit.ts";
import { type CycleRead, type CycleReadDeps, readCycle } from "./cycle-read.ts";
import {
  type CycleKind,
  type CycleResult,
  DEFAULT_POLL_SCHEDULE,
  DEFAULT_RECONCILE_SCHEDULE,
  emptyPollerMetrics,
  type Poller,
  type PollerOptions,
} from "./poll-types.ts";

export {
  type CycleKind,
  type CycleResult,
  DEFAULT_POLL_SCHEDULE,
  DEFAULT_RECONCILE_SCHEDULE,
  emptyPollerMetrics,
  type Poller,
  type PollerMetrics,
  type PollerOptions,
} from "./poll-types.ts";

/*
 * The poller as a whole: when cycles run and how they take turns. A cycle reads Palette
 * (cycle-read.ts), then diffs, alerts, routes and commits in one transaction (cycle-commit.ts);
 * this file schedules them, runs one committing cycle at a time, lets a reconciliation read the
 * whole fleet while incremental cycles go on, and keeps the counters readiness and metrics show.
 * Its words (options, results, metrics) are in poll-types.ts.
 */

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A failed cycle in words fit for `/readyz`: the kind of failure and where, without the error
 * body Palette sent (that text is in the log line, for operators).
 */
export function failureSummary(error: unknown): string {
  if (error instanceof FencedOut) return "this replica no longer leads: the commit was refused";
  if (error instanceof PaletteError) {
    const status = error.status > 0 ? `HTTP ${error.status}, ` : "";
    return `Palette ${error.kind} error (${status}${error.endpoint})`;
  }
  if (error instanceof PaletteSchemaError) {
    return `Palette answered ${error.endpoint} in a shape the bot does not read`;
  }
  return "internal error (details in the bot's log)";
}

export function createPoller(options: PollerOptions): Poller {
  const { db, clock, logger } = options;
  const scopes = options.projects.length > 0 ? options.projects : [""];
  const snapshots = new SnapshotStore(db);
  const alertKinds = alertKindsMemory(logger);
  const readDeps: CycleReadDeps = {
    palette: options.palette,
    db,
    clock,
    logger,
    snapshots,
    staging: new ReconcileStaging(db),
    scopes,
    reconcileBatch: options.reconcileBatch,
    lookupParallelism: options.lookupParallelism,
  };
  const commitDeps: CycleCommitDeps = {
    db,
    snapshots,
    subscriptions: new SubscriptionStore(db, clock),
    logger,
    scopes,
    alertKinds,
    eventsLimit: options.eventsLimit ?? 10,
    maxEventCalls: options.maxEventCalls ?? 10,
    eventReadsWindowMs: options.eventReadsWindowMs ?? 2_000,
    likelyCauses: options.likelyCauses,
    causeEmails: options.causeEmails,
    fence: options.fence,
  };

  const metrics = emptyPollerMetrics();
  let running: Promise<CycleResult> | undefined;
  let tasks: ScheduledTask[] = [];
  /** the first cycle reconciles; so does the first after a tick, or after a failed one */
  let reconcileDue = true;
  /**
   * While a reconciliation reads Palette (minutes at fleet scale), incremental cycles go on and
   * commit; this holds, per scope, the clusters they wrote meanwhile, which the reconciliation's
   * older reading of them must not overwrite or announce again.
   */
  let reconciling: Map<string, Set<string>> | undefined;
  /** the reconciliation under way, read and commit: what stop() waits for besides `running` */
  let reconciliation: Promise<CycleResult> | undefined;
  let lastCommitAt: string | undefined;

  /**
   * Commits what `read` found (commitCycle), then the poller's own bookkeeping. `newer` (a
   * reconciliation's): per scope, the clusters incremental cycles wrote while it read.
   */
  async function cycle(
    read: CycleRead,
    newer?: ReadonlyMap<string, ReadonlySet<string>>,
  ): Promise<CycleResult> {
    const { kind, started, startedReal, readEnded, reads } = read;
    const { changes, drafts, holdChanges, wrote, eventCalls, kindsRead } = await commitCycle(
      commitDeps,
      read,
      newer,
    );
    // the clusters' news goes out now; the edge hosts follow in the same turn, their news
    // committed (or not) on its own
    if (drafts.length > 0) options.onCommitted?.(drafts.length);
    const edge = (await options.edge?.(kind)) ?? { paletteCalls: 0, outboxRows: 0 };
    if (edge.outboxRows > 0) options.onCommitted?.(edge.outboxRows);
    const at = iso(started);

    alertKinds.settled(kindsRead);
    metrics.alertsUnavailable = alertKinds.unavailable();
    // what Palette said between these two times is now announced (or known unchanged): one line
    // per cycle lets an operator, or the chaos suite's score, tell "never seen" from "lost"
    logger.info(
      {
        kind,
        readFrom: at,
        readTo: iso(readEnded),
        changes: changes.length,
        outboxRows: drafts.length,
      },
      "poll cycle committed",
    );
    // a reconciliation reading now must not overwrite what this cycle just wrote
    if (reconciling && kind === "incremental") {
      for (const [scope, uids] of wrote) {
        const taken = reconciling.get(scope) ?? new Set<string>();
        for (const uid of uids) taken.add(uid);
        reconciling.set(scope, taken);
      }
    }
    if (!lastCommitAt || at > lastCommitAt) lastCommitAt = at;
    if (kind === "reconcile") {
      reconcileDue = false;
      metrics.lastReconcileAt = at;
    }
    const clusters = await snapshots.count([...reads.keys()]);
    const durationMs = performance.now() - startedReal;
    metrics.lastCycleMs = durationMs;
    metrics.totalCycleMs += durationMs;
    metrics.clustersSeen = clusters;
    metrics.changesReported += changes.length;
    metrics.outboxRows += drafts.length + edge.outboxRows;
    metrics.lastSuccessAt = at;
    metrics.lastCycleOk = true;
    metrics.lastError = undefined;
    const rows = drafts.length + edge.outboxRows;
    if (holdChanges.length > 0) options.onHoldsEnded?.(holdChanges);
    return {
      kind,
      ok: true,
      skipped: false,
      clusters,
      changes: changes.length,
      outboxRows: rows,
      eventCalls,
      paletteCalls: read.counter.calls + edge.paletteCalls,
      durationMs,
    };
  }

  const skippedCycle = (kind: CycleKind): CycleResult => {
    metrics.skippedCycles += 1;
    return {
      kind,
      ok: true,
      skipped: true,
      clusters: 0,
      changes: 0,
      outboxRows: 0,
      eventCalls: 0,
      paletteCalls: 0,
      durationMs: 0,
    };
  };

  /** A cycle's outcome into the metrics and the onCycle hook; a failure becomes a result. */
  function settle(
    kind: CycleKind,
    counter: { calls: number },
    startedReal: number,
    work: Promise<CycleResult>,
  ): Promise<CycleResult> {
    return work
      .catch((error: unknown): CycleResult => {
        metrics.failedCycles += 1;
        const message = error instanceof Error ? error.message : String(error);
        logger.warn(
          { err: message, kind },
          "poll cycle failed; nothing committed, next cycle retries",
        );
        // what readiness and metrics repeat: the kind of failure, never Palette's own words
        const summary = failureSummary(error);
        return {
          kind,
          ok: false,
          skipped: false,
          clusters: 0,
          changes: 0,
          outboxRows: 0,
          eventCalls: 0,
          paletteCalls: counter.calls,
          durationMs: performance.now() - startedReal,
          error: summary,
        };
      })
      .then((result) => {
        if (result.skipped) return result;
        metrics.cycles += 1;
        if (kind === "reconcile") metrics.reconcileCycles += 1;
        else metrics.incrementalCycles += 1;
        metrics.lastCycleKind = kind;
        metrics.lastCyclePaletteCalls = result.paletteCalls;
        if (!result.ok) {
          metrics.lastCycleOk = false;
          metrics.lastError = result.error;
        }
        try {
          options.onCycle?.(result);
        } catch (error) {
          logger.warn({ err: String(error) }, "onCycle hook failed");
        }
        return result;
      });
  }

  /** `work` as the one cycle committing at a time; the poll is routine, commands go first */
  async function serialized(
    kind: CycleKind,
    counter: { calls: number },
    startedReal: number,
    work: () => Promise<CycleResult>,
  ): Promise<CycleResult> {
    running = settle(kind, counter, startedReal, inBackground(work));
    try {
      return await running;
    } finally {
      running = undefined;
    }
  }

  async function runCycle(): Promise<CycleResult> {
    if (reconcileDue && !reconciling) return reconcile();
    if (running) return skippedCycle("incremental");
    const counter = { calls: 0 };
    const onlyBaselined = reconciling !== undefined;
    return serialized("incremental", counter, performance.now(), async () => {
      const read = await readCycle(readDeps, "incremental", counter, onlyBaselined);
      // nothing to read but what the running reconciliation gives its first look
      if (onlyBaselined && read.reads.size === 0) return skippedCycle("incremental");
      return cycle(read);
    });
  }

  /**
   * A reconciliation reads the whole fleet without holding the poll, so incremental cycles keep
   * announcing changes meanwhile (at 50,000 clusters the read takes over a minute and a half);
   * then it waits for the cycle in flight and commits, leaving the clusters those cycles wrote as
   * they wrote them.
   */
  async function reconcile(): Promise<CycleResult> {
    const run = reconcileWhileIncrementalsGoOn();
    reconciliation = run;
    options.onReconciling?.(true);
    try {
      return await run;
    } finally {
      reconciliation = undefined;
      options.onReconciling?.(false);
    }
  }

  async function reconcileWhileIncrementalsGoOn(): Promise<CycleResult> {
    const newer = new Map<string, Set<string>>();
    reconciling = newer;
    const counter = { calls: 0 };
    const startedReal = performance.now();
    try {
      let read: CycleRead;
      try {
        read = await inBulk(() => readCycle(readDeps, "reconcile", counter));
      } catch (error) {
        return await settle("reconcile", counter, startedReal, Promise.reject(error));
      }
      while (running) await running;
      return await serialized("reconcile", counter, startedReal, () => cycle(read, newer));
    } finally {
      reconciling = undefined;
    }
  }

  const requestReconcile = () => {
    reconcileDue = true;
  };

  return {
    runCycle,
    requestReconcile,
    start() {
      if (tasks.length > 0) return;
      tasks = [
        cron.schedule(
          options.schedule ?? DEFAULT_POLL_SCHEDULE,
          async () => {
            await runCycle();
          },
          { noOverlap: true, name: "palette-poll" },
        ),
        // a tick during a running cycle leaves the reconciliation due: the next cycle is one
        cron.schedule(
          options.reconcileSchedule ?? DEFAULT_RECONCILE_SCHEDULE,
          async () => {
            requestReconcile();
            await runCycle();
          },
          { noOverlap: true, name: "palette-reconcile" },
        ),
      ];
    },
    async stop() {
      for (const task of tasks) {
        await task.stop();
        await task.destroy();
      }
      tasks = [];
      if (reconciliation) await reconciliation;
      if (running) await running;
    },
    // read on demand: the poller keeps no copy of the fleet between cycles
    lastSnapshot: async () => {
      const at = lastCommitAt;
      return at ? { clusters: await snapshots.inScopes(scopes), at } : { clusters: [] };
    },
    metrics: () => ({ ...metrics, alertsUnavailable: [...metrics.alertsUnavailable] }),
  };
}
