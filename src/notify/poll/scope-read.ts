import type { Logger } from "../../log.ts";
import { type ClusterSnap, isKnownUnhealthy } from "../../model/cluster.ts";
import type { ClusterChange } from "../../model/notification.ts";
import type { PaletteApi, Scope } from "../../palette/api.ts";
import type { ClusterSummary } from "../../palette/schemas.ts";
import type { SnapshotStore } from "../../store/snapshots.ts";
import type { SqlDb, SqlExecutor } from "../../store/sql.ts";
import type { ReconcileStaging } from "../../store/staging.ts";
import { snapOf } from "./diff.ts";

/**
 * What one poll scope (a project UID, or "" for the tenant) yielded this cycle, however Palette
 * was read: the changes, and the scope's clusters as they will be once the cycle commits. Only
 * the clusters that changed or are unhealthy are held in memory; the rest are read from the
 * store (or the reconciliation's staging rows) when asked for.
 */
export interface ScopeRead {
  scope: string;
  /** `full`: the whole listing (a reconciliation); `incremental`: what can have changed */
  mode: "full" | "incremental";
  /**
   * An incremental read's share of the cycle's Palette calls: the pages its not-steady set fills,
   * one name search per 50 clusters that left it, and 3 more (the owner's bar for a steady
   * cycle). What the reads leave of it is all the cycle spends on event reads.
   */
  callAllowance?: number;
  /** set on the scope's first look (nothing diffed, channels get a summary): its clusters */
  baseline?: { forEach(visit: (cluster: ClusterSnap) => void): Promise<void> };
  /** this cycle's changes, in the order Palette listed the clusters, deletions last */
  changes: ClusterChange[];
  /** health conditions of the clusters listed with a known bad health, by UID */
  conditions: Map<string, string[]>;
  /** these clusters as the cycle leaves them (deleted ones and unknown UIDs left out) */
  after(uids: readonly string[]): Promise<Map<string, ClusterSnap>>;
  /** the scope's clusters with a known bad health as the cycle leaves them */
  unhealthyAfter(): Promise<ClusterSnap[]>;
  /**
   * Writes the scope's snapshot changes through `tx`, the cycle's one transaction, except for the
   * clusters in `newer` (written by a cycle that read Palette after this one); returns the UIDs
   * whose snapshot it wrote or removed.
   */
  commit(tx: SqlExecutor, at: string, newer?: ReadonlySet<string>): Promise<readonly string[]>;
}

export interface ReadDeps {
  palette: Pick<PaletteApi, "searchClusters" | "getCluster" | "getClusterOverview">;
  /** the database: each reconciliation batch is staged in a small transaction of its own */
  db: SqlDb;
  snapshots: SnapshotStore;
  staging: ReconcileStaging;
  logger: Logger;
  /** GETs by UID in flight at once, confirming absent clusters; default 4 */
  lookupParallelism?: number;
}

export const scopeQuery = (scope: string): Scope => (scope ? { projectUid: scope } : {});

function conditionsOf(summary: ClusterSummary): string[] {
  return (summary.status?.health?.conditions ?? [])
    .map((c) => [c.type, c.message].filter(Boolean).join(": "))
    .filter((text) => text.length > 0);
}

/**
 * A search result → the snapshot, noting its health conditions when its health is known bad
 * (the only clusters whose alert reason can be needed). In tenant scope each cluster keeps its
 * own project.
 */
export function readSummary(
  summary: ClusterSummary,
  scope: string,
  conditions: Map<string, string[]>,
): ClusterSnap | undefined {
  const snap = snapOf(summary, scope || (summary.specSummary?.projectMeta?.uid ?? ""));
  if (!snap) return undefined;
  if (isKnownUnhealthy(snap.health)) {
    const found = conditionsOf(summary);
    if (found.length > 0) conditions.set(snap.uid, found);
  }
  return snap;
}

/** Whether the store must be written for this cluster: anything it remembers differs. */
export function differs(before: ClusterSnap | undefined, after: ClusterSnap): boolean {
  return (
    !before ||
    before.project !== after.project ||
    before.name !== after.name ||
    before.state !== after.state ||
    before.health !== after.health ||
    JSON.stringify(before.tags) !== JSON.stringify(after.tags)
  );
}
