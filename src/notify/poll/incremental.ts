import {
  type ClusterSnap,
  isKnownUnhealthy,
  STEADY_HEALTH,
  STEADY_STATE,
} from "../../model/cluster.ts";
import type { ClusterSearch } from "../../palette/api.ts";
import { clusterPages } from "../../palette/paging.ts";
import { SnapshotStore } from "../../store/snapshots.ts";
import { lookUpAbsent } from "./absence.ts";
import { diffClusters } from "./diff.ts";
import { type ReadDeps, readSummary, type ScopeRead, scopeQuery } from "./scope-read.ts";

/**
 * What can have changed: clusters not Running, and clusters not Healthy. Two searches rather
 * than one "or", each in the documented single-group shape; their union is every cluster that is
 * not steady (`isSteady`), whichever way Palette treats a missing health.
 */
const UNSTEADY: ReadonlyArray<Pick<ClusterSearch, "state" | "health">> = [
  { state: { values: [STEADY_STATE], negate: true } },
  { health: { values: [STEADY_HEALTH], negate: true } },
];

/** Names per confirming search: one page of answers. */
export const NAMES_PER_SEARCH = 50;

/** A steady cycle's calls per scope beyond the pages it must read (the owner's bar: 3). */
export const STEADY_CYCLE_EXTRA_CALLS = 3;

function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * The clusters read by several searches, in the order a full listing would give their changes:
 * the order the store first saw them in (Palette's listing order), clusters it does not know yet
 * last, as they were read. A reconciliation and an incremental cycle then tell a channel about
 * the same changes in the same order.
 */
async function inListingOrder(
  listed: ReadonlyMap<string, ClusterSnap>,
  snapshots: ReadDeps["snapshots"],
  scope: string,
): Promise<ClusterSnap[]> {
  const positions = await snapshots.positions(scope, [...listed.keys()]);
  const known = [...listed.values()].filter((c) => positions.has(c.uid));
  known.sort((a, b) => positions.get(a.uid)! - positions.get(b.uid)!);
  return [...known, ...[...listed.values()].filter((c) => !positions.has(c.uid))];
}

/**
 * An incremental read of one scope that already has its baseline. Palette is asked only for the
 * clusters that are not Running and Healthy. A cluster remembered as not steady that this set no
 * longer holds has left it: recovered, deleted, or skipped by a shifting page. Those are
 * confirmed by name (one search per 50 names, which also reads their health), and the ones even
 * that does not find by UID (absence is not deletion). Clusters remembered as Running and Healthy
 * and not listed are taken as unchanged: what this cannot see (a cluster imported already
 * steady, a tag change, a deletion that skipped `Deleting`) is the reconciliation's job.
 */
export async function readIncremental(deps: ReadDeps, scope: string): Promise<ScopeRead> {
  const { palette, snapshots } = deps;
  const query = scopeQuery(scope);
  const listed = new Map<string, ClusterSnap>();
  const conditions = new Map<string, string[]>();
  for (const filter of UNSTEADY) {
    for await (const page of clusterPages(palette, { ...query, ...filter })) {
      for (const summary of page) {
        const snap = readSummary(summary, scope, conditions);
        if (snap && !listed.has(snap.uid)) listed.set(snap.uid, snap);
      }
    }
  }

  const unsteadyListed = listed.size;
  const expected = await snapshots.unsteady(scope);
  const left = [...expected.values()].filter((c) => !listed.has(c.uid));
  const leftUids = new Set(left.map((c) => c.uid));
  for (const names of chunk([...new Set(left.map((c) => c.name))], NAMES_PER_SEARCH)) {
    for await (const page of clusterPages(palette, { ...query, names })) {
      for (const summary of page) {
        const snap = readSummary(summary, scope, conditions);
        // a name can be another project's too (tenant scope): only the clusters asked about
        if (snap && leftUids.has(snap.uid) && !listed.has(snap.uid)) listed.set(snap.uid, snap);
      }
    }
  }
  const { verdicts: absent, present } = await lookUpAbsent(
    left.filter((c) => !listed.has(c.uid)),
    { palette, logger: deps.logger, parallelism: deps.lookupParallelism },
  );
  for (const [uid, cluster] of present) listed.set(uid, cluster);

  // the listed clusters remembered as steady: the ones that just became news
  const newlyUnsteady = [...listed.keys()].filter((uid) => !expected.has(uid));
  const previous = new Map([...expected, ...(await snapshots.byUids(scope, newlyUnsteady))]);
  const { changes, next } = diffClusters(
    previous,
    await inListingOrder(listed, snapshots, scope),
    absent,
  );
  const nextByUid = new Map(next.map((c) => [c.uid, c]));
  const gone = new Set([...previous.keys()].filter((uid) => !nextByUid.has(uid)));

  return {
    scope,
    mode: "incremental",
    callAllowance:
      STEADY_CYCLE_EXTRA_CALLS +
      Math.ceil(unsteadyListed / NAMES_PER_SEARCH) +
      Math.ceil(left.length / NAMES_PER_SEARCH),
    changes,
    conditions,
    async after(uids) {
      const found = new Map<string, ClusterSnap>();
      const stored: string[] = [];
      for (const uid of uids) {
        const cluster = nextByUid.get(uid);
        if (cluster) found.set(uid, cluster);
        else if (!gone.has(uid)) stored.push(uid);
      }
      for (const [uid, cluster] of await snapshots.byUids(scope, stored)) found.set(uid, cluster);
      return found;
    },
    async unhealthyAfter() {
      const out: ClusterSnap[] = [];
      const seen = new Set<string>();
      for (const before of await snapshots.unhealthy(scope)) {
        seen.add(before.uid);
        if (gone.has(before.uid)) continue;
        const cluster = nextByUid.get(before.uid) ?? before;
        if (isKnownUnhealthy(cluster.health)) out.push(cluster);
      }
      for (const cluster of next) {
        if (!seen.has(cluster.uid) && isKnownUnhealthy(cluster.health)) out.push(cluster);
      }
      return out;
    },
    async commit(tx, at) {
      return new SnapshotStore(tx).replace(scope, previous, next, at);
    },
  };
}
