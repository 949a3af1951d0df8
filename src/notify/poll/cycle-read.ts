import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import type { PaletteApi } from "../../palette/api.ts";
import { PaletteError } from "../../palette/errors.ts";
import type { SnapshotStore } from "../../store/snapshots.ts";
import type { SqlDb } from "../../store/sql.ts";
import type { ReconcileStaging } from "../../store/staging.ts";
import { readIncremental } from "./incremental.ts";
import type { CycleKind } from "./poll-types.ts";
import { readFull } from "./reconcile.ts";
import type { ScopeRead } from "./scope-read.ts";

/*
 * A cycle's first half: Palette read scope by scope (in full, or only what can have changed),
 * through a client that counts the cycle's calls. Nothing is diffed against the alerts or written
 * here, so a failure leaves the store exactly as it was; the commit (cycle-commit.ts) comes after,
 * possibly much later for a reconciliation that waited for the incremental cycles going on.
 */

/** The Palette calls the poller makes, each counted (the cycle's cost is a metric). */
export type PollPalette = Pick<
  PaletteApi,
  | "searchClusters"
  | "getCluster"
  | "getClusterOverview"
  | "listAlertComponents"
  | "listClusterEvents"
  | "listAudits"
  | "clusterEventsPage"
>;

/**
 * Each cycle counts its own Palette calls through a client of its own: a reconciliation's reads
 * and incremental cycles can overlap.
 */
export function countedPalette(palette: PollPalette, counter: { calls: number }): PollPalette {
  const counted =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      counter.calls += 1;
      return call(...args);
    };
  return {
    searchClusters: counted((query) => palette.searchClusters(query)),
    getCluster: counted((uid, scope) => palette.getCluster(uid, scope)),
    getClusterOverview: counted((uid, scope) => palette.getClusterOverview(uid, scope)),
    listAlertComponents: counted((scope) => palette.listAlertComponents(scope)),
    listClusterEvents: counted((uid, scope, limit) => palette.listClusterEvents(uid, scope, limit)),
    listAudits: counted((query, scope) => palette.listAudits(query, scope)),
    clusterEventsPage: counted((uid, scope, next) => palette.clusterEventsPage(uid, scope, next)),
  };
}

/** What the read half needs, given once by the poller. */
export interface CycleReadDeps {
  /** the poller's own client; each cycle wraps it to count its calls */
  palette: PollPalette;
  db: SqlDb;
  clock: Clock;
  logger: Logger;
  snapshots: SnapshotStore;
  staging: ReconcileStaging;
  /** the poll scopes: PALETTE_PROJECTS, or [""] for the tenant */
  scopes: readonly string[];
  reconcileBatch?: number;
  lookupParallelism?: number;
}

/** What a cycle read from Palette, before anything is diffed against the store or committed. */
export interface CycleRead {
  kind: CycleKind;
  /** the cycle's own client, counting its calls in `counter` */
  palette: PollPalette;
  counter: { calls: number };
  started: number;
  startedReal: number;
  readEnded: number;
  reads: Map<string, ScopeRead>;
}

/** Palette first, scope by scope: a failure here leaves the store exactly as it was. */
async function readScopes(
  deps: CycleReadDeps,
  kind: CycleKind,
  palette: PollPalette,
  onlyBaselined: boolean,
): Promise<Map<string, ScopeRead>> {
  const { snapshots, logger } = deps;
  const readDeps = {
    palette,
    db: deps.db,
    snapshots,
    staging: deps.staging,
    logger,
    lookupParallelism: deps.lookupParallelism,
  };
  const reads = new Map<string, ScopeRead>();
  let skipped: PaletteError | undefined;
  for (const scope of deps.scopes) {
    try {
      // a scope without its baseline (never seen, or refused until now) is read in full,
      // unless a reconciliation reading it right now gives it its baseline
      const full = kind === "reconcile" || !(await snapshots.hasBaseline(scope));
      if (full && onlyBaselined) continue;
      const read = full
        ? await readFull(readDeps, scope, deps.reconcileBatch)
        : await readIncremental(readDeps, scope);
      reads.set(scope, read);
    } catch (error) {
      // A project the bot may not see (deleted, role removed) must not silence the others;
      // it is left out untouched, so nothing about it is diffed or falsely reported.
      if (
        error instanceof PaletteError &&
        (error.kind === "forbidden" || error.kind === "not_found")
      ) {
        logger.warn({ project: scope, err: error.message }, "project skipped this cycle");
        skipped = error;
        continue;
      }
      throw error;
    }
  }
  // every project refused: that is the bot's access, not one project; the cycle fails so
  // readiness and the logs say so instead of a silent poll of nothing
  if (skipped && reads.size === 0) throw skipped;
  return reads;
}

/**
 * A cycle's read of every scope, counting its calls in `counter`. `onlyBaselined`: while a
 * reconciliation reads, an incremental cycle leaves the scopes it gives their first look to it.
 */
export async function readCycle(
  deps: CycleReadDeps,
  kind: CycleKind,
  counter: { calls: number },
  onlyBaselined = false,
): Promise<CycleRead> {
  const started = deps.clock.now();
  const startedReal = performance.now();
  const palette = countedPalette(deps.palette, counter);
  const reads = await readScopes(deps, kind, palette, onlyBaselined);
  return { kind, palette, counter, started, startedReal, readEnded: deps.clock.now(), reads };
}
