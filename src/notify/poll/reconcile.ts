import { type ClusterSnap, isKnownUnhealthy } from "../../model/cluster.ts";
import type { ClusterChange } from "../../model/notification.ts";
import { clusterPages } from "../../palette/paging.ts";
import { ReconcileStaging } from "../../store/staging.ts";
import { lookUpAbsent } from "./absence.ts";
import { diffClusters } from "./diff.ts";
import { differs, type ReadDeps, readSummary, type ScopeRead, scopeQuery } from "./scope-read.ts";

/** Listed clusters diffed and staged together: memory holds one batch, not the fleet. */
export const RECONCILE_BATCH = 500;

/**
 * A reconciliation of one scope: Palette's full listing, read page by page. Each batch of
 * clusters is diffed against the stored snapshots of just those clusters and written to the
 * staging table; clusters the store remembers but the listing left out are then looked up by UID
 * (absence is not deletion). Nothing the poller remembers changes until `commit`.
 */
export async function readFull(
  deps: ReadDeps,
  scope: string,
  batchSize = RECONCILE_BATCH,
): Promise<ScopeRead> {
  const { palette, snapshots, staging } = deps;
  const first = !(await snapshots.hasBaseline(scope));
  const changes: ClusterChange[] = [];
  const conditions = new Map<string, string[]>();
  await staging.clear(scope);
  /** one small transaction per batch: its inserts together, not one commit each */
  const stage = (rows: Parameters<ReconcileStaging["add"]>[1]) =>
    deps.db.transaction((tx) => new ReconcileStaging(tx).add(scope, rows));

  let batch: ClusterSnap[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const uids = batch.map((c) => c.uid);
    // a page boundary that shifted can list a cluster twice: the first listing counts
    const already = await staging.listed(scope, uids);
    const fresh = batch.filter((c) => !already.has(c.uid));
    batch = [];
    if (first) {
      await stage(fresh.map((cluster) => ({ cluster, changed: true })));
      return;
    }
    const previous = await snapshots.byUids(
      scope,
      fresh.map((c) => c.uid),
    );
    const diff = diffClusters(previous, fresh);
    changes.push(...diff.changes);
    await stage(
      diff.next.map((cluster) => ({
        cluster,
        changed: differs(previous.get(cluster.uid), cluster),
      })),
    );
  };

  for await (const page of clusterPages(palette, scopeQuery(scope))) {
    for (const summary of page) {
      const snap = readSummary(summary, scope, conditions);
      if (snap) batch.push(snap);
    }
    if (batch.length >= batchSize) await flush();
  }
  await flush();

  // Remembered but not listed: gone only if a look-up by UID says so; one still there counts as
  // listed, as the look-up found it.
  const unlisted = first ? [] : await staging.unlisted(scope);
  const { verdicts: absent, present } = await lookUpAbsent(unlisted, {
    palette,
    logger: deps.logger,
    parallelism: deps.lookupParallelism,
  });
  batch.push(...present.values());
  await flush();
  const stillUnlisted = unlisted.filter((c) => !present.has(c.uid));
  const gone = diffClusters(new Map(stillUnlisted.map((c) => [c.uid, c])), [], absent);
  changes.push(...gone.changes);
  const deleted = gone.changes.map((c) => c.cluster.uid);
  const kept = gone.next;

  return {
    scope,
    mode: "full",
    // a first look has no stored clusters, so nothing unlisted: the staging rows are all of it
    baseline: first ? { forEach: (visit) => staging.forEach(scope, visit) } : undefined,
    changes,
    conditions,
    async after(uids) {
      const found = await staging.byUids(scope, uids);
      const wanted = new Set(uids);
      for (const c of kept) if (wanted.has(c.uid)) found.set(c.uid, c);
      return found;
    },
    async unhealthyAfter() {
      return [
        ...(await staging.unhealthy(scope)),
        ...kept.filter((c) => isKnownUnhealthy(c.health)),
      ];
    },
    async commit(tx, at, newer) {
      await new ReconcileStaging(tx).apply(scope, deleted, at, newer);
      return [];
    },
  };
}
