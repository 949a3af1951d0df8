import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import type { ClusterSnap } from "../../model/cluster.ts";
import type { HoldChange } from "../../model/notification.ts";
import type { PaletteApi } from "../../palette/api.ts";
import type { SqlDb, SqlExecutor } from "../../store/sql.ts";

/*
 * The poller's contract, apart from how it runs: what it is given (options and their defaults),
 * what one cycle reports, and the counters readiness and metrics read. The edge (src/app/) and the
 * cycle's own modules both need these words without pulling in the scheduling in poll.ts.
 */

/**
 * `incremental`: Palette is asked only for what can have changed (clusters not Running and
 * Healthy, and the ones that just left that set); `reconcile`: the full listing, diffed against
 * everything remembered, which also sees what the incremental query cannot.
 */
export type CycleKind = "incremental" | "reconcile";

export interface PollerOptions {
  palette: PaletteApi;
  db: SqlDb;
  clock: Clock;
  logger: Logger;
  /** PALETTE_PROJECTS; empty = tenant scope */
  projects: string[];
  /** node-cron expression (POLL_SCHEDULE); default every 30 seconds */
  schedule?: string;
  /** node-cron expression (RECONCILE_SCHEDULE) of the full reconciliation; default every 10 minutes */
  reconcileSchedule?: string;
  /** clusters a reconciliation diffs and stages at a time; default 500 */
  reconcileBatch?: number;
  /** events read per cluster whose health was lost; default 10 */
  eventsLimit?: number;
  /** at most this many event reads per cycle, all projects together; default 10 */
  maxEventCalls?: number;
  /**
   * How long a cycle waits for those event reads, all projects together, before it commits
   * without the ones still out (the reason then comes from health conditions); default 2 s
   */
  eventReadsWindowMs?: number;
  /** GETs by UID in flight at once, confirming clusters missing from a listing; default 4 */
  lookupParallelism?: number;
  /**
   * A notification that a cluster lost health or failed carries its likely cause (issue 27): two
   * more reads per announced cluster (its audit and events, narrowed to the hour), out of the
   * same budget and window as the event reads; none for a roll-up. Default off.
   */
  likelyCauses?: boolean;
  /**
   * WHY_SHOW_EMAIL: the likely-cause line names the actor's e-mail; by default their Palette
   * name, since a channel card is read by everyone in it (issue 31)
   */
  causeEmails?: boolean;
  /** called after a cycle committed outbox rows (wakes the sender) */
  onCommitted?: (rows: number) => void;
  /** called after a cycle ended snoozes or mutes (the Slack edge redraws their cards) */
  onHoldsEnded?: (changes: HoldChange[]) => void;
  /** called after every cycle that ran (ok or failed; not for skipped ones), e.g. for metrics */
  onCycle?: (result: CycleResult) => void;
  /** a reconciliation started (true) or ended (false) reading and committing, for metrics */
  onReconciling?: (active: boolean) => void;
  /**
   * Run first inside the commit's transaction; throws (FencedOut) when this replica no longer
   * leads, so a leader deposed while it read Palette commits nothing (src/store/lease.ts)
   */
  fence?: (tx: SqlExecutor) => Promise<void>;
  /**
   * The edge fleet's part of each cycle (issue 39, src/edge/watch.ts, wired in src/app/): run
   * right after the clusters' commit, in the same turn and rate lane; its Palette calls and
   * outbox rows count in the cycle's
   */
  edge?: (kind: CycleKind) => Promise<{ paletteCalls: number; outboxRows: number }>;
}

export const DEFAULT_POLL_SCHEDULE = "*/30 * * * * *";
export const DEFAULT_RECONCILE_SCHEDULE = "0 */10 * * * *";

export interface CycleResult {
  /** the kind of cycle that ran (for a skipped one: the kind that was due) */
  kind: CycleKind;
  ok: boolean;
  /** a cycle was still running: this one did nothing */
  skipped: boolean;
  /** clusters the poller remembers in the scopes it read */
  clusters: number;
  changes: number;
  outboxRows: number;
  eventCalls: number;
  /** Palette API calls the cycle made (searches pages, look-ups, alert kinds, events) */
  paletteCalls: number;
  durationMs: number;
  error?: string;
}

export interface PollerMetrics {
  /** cycles that ran, ok or failed (skipped ones not counted) */
  cycles: number;
  failedCycles: number;
  skippedCycles: number;
  /** cycles that ran, by kind */
  incrementalCycles: number;
  reconcileCycles: number;
  /** the kind of the last cycle that ran, and the Palette calls it made */
  lastCycleKind?: CycleKind;
  lastCyclePaletteCalls: number;
  /** when the last reconciliation committed */
  lastReconcileAt?: string;
  lastCycleMs: number;
  totalCycleMs: number;
  clustersSeen: number;
  changesReported: number;
  outboxRows: number;
  lastSuccessAt?: string;
  /** false after a failed cycle, until one succeeds (readiness) */
  lastCycleOk: boolean;
  /** the last failure's message (no secrets: PaletteError messages carry none) */
  lastError?: string;
  /**
   * Scopes whose alert kinds Palette refuses, in words for readiness ("alerts unavailable for
   * project X: Palette refused (403)"): their cluster changes are still reported, alerts are not.
   */
  alertsUnavailable: string[];
}

export interface Poller {
  /** one cycle: a reconciliation when one is due (the first cycle, a RECONCILE_SCHEDULE tick, a
   * failed reconciliation), else incremental */
  runCycle(): Promise<CycleResult>;
  /** makes the next cycle a reconciliation (what the RECONCILE_SCHEDULE tick does) */
  requestReconcile(): void;
  start(): void;
  stop(): Promise<void>;
  /** the clusters as of the last committed cycle (for the App Home), read from the store on call */
  lastSnapshot(): Promise<{ clusters: ClusterSnap[]; at?: string }>;
  metrics(): PollerMetrics;
}

/** The counters of a poller that has not run a cycle yet. */
export function emptyPollerMetrics(): PollerMetrics {
  return {
    cycles: 0,
    failedCycles: 0,
    skippedCycles: 0,
    incrementalCycles: 0,
    reconcileCycles: 0,
    lastCyclePaletteCalls: 0,
    lastCycleMs: 0,
    totalCycleMs: 0,
    clustersSeen: 0,
    changesReported: 0,
    outboxRows: 0,
    lastCycleOk: false,
    alertsUnavailable: [],
  };
}
