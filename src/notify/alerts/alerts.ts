import { alertKey, CLUSTER_HEALTH, type RaisedAlert } from "../../model/alert.ts";
import { type ClusterSnap, isHealthy, isKnownUnhealthy } from "../../model/cluster.ts";
import type { AlertEvent, ClusterChange } from "../../model/notification.ts";
import type { PaletteEvent } from "../../palette/schemas.ts";

const MAX_REASON = 500;

/** Why a cluster is unhealthy: its health conditions, then its recent Warning events. */
export function reasonFrom(
  health: string,
  conditions: readonly string[],
  events: readonly PaletteEvent[],
): string {
  const parts = [...conditions];
  for (const event of events) {
    if ((event.severity ?? "").toLowerCase() !== "warning") continue;
    const text = [event.reason, event.message].filter(Boolean).join(": ");
    // the simulator and Palette often repeat a condition's message in an event: say it once
    const known = event.message && parts.some((part) => part.includes(event.message ?? ""));
    if (text && !known && !parts.includes(text)) parts.push(text);
    if (parts.length >= 4) break;
  }
  const reason = parts.length > 0 ? parts.join("; ") : `health is ${health || "unknown"}`;
  return reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON - 1)}…` : reason;
}

function wantsRaise(change: ClusterChange): boolean {
  if (change.kinds.includes("health-lost")) return true;
  // first seen after the baseline and already unhealthy: `/palette alerts` lists it as raising
  if (change.kinds.includes("new") && isKnownUnhealthy(change.cluster.health)) return true;
  // a flapping cluster that settles unhealthy is raised now: its loss was swallowed
  return (
    change.kinds.includes("settled") &&
    change.cluster.health !== "" &&
    !isHealthy(change.cluster.health)
  );
}

/** Clusters whose alert would be raised this poll: the only ones whose events are read. */
export function clustersNeedingReason(
  changes: readonly ClusterChange[],
  raised: ReadonlyMap<string, RaisedAlert>,
  supported: ReadonlySet<string>,
): string[] {
  if (!supported.has(CLUSTER_HEALTH)) return [];
  return changes
    .filter(
      (change) => wantsRaise(change) && !raised.has(alertKey(change.cluster.uid, CLUSTER_HEALTH)),
    )
    .map((change) => change.cluster.uid);
}

export interface AlertResult {
  events: AlertEvent[];
  raise: RaisedAlert[];
  resolve: Array<{ clusterUid: string; kind: string }>;
}

/**
 * Pure: the alert kinds Palette says the project supports, applied to this poll's changes.
 * `ClusterHealth` is raised when health leaves Healthy, when a cluster with no health yet first
 * reports a bad one, or when a cluster appears already unhealthy; it is resolved when health
 * returns to Healthy (or the cluster is deleted). Kinds the project does not list are never raised.
 */
export function evaluateAlerts(input: {
  changes: readonly ClusterChange[];
  raised: ReadonlyMap<string, RaisedAlert>;
  supported: ReadonlySet<string>;
  reasons: ReadonlyMap<string, string>;
  now: string;
}): AlertResult {
  const result: AlertResult = { events: [], raise: [], resolve: [] };
  if (!input.supported.has(CLUSTER_HEALTH)) return result;
  for (const change of input.changes) {
    const { cluster } = change;
    const existing = input.raised.get(alertKey(cluster.uid, CLUSTER_HEALTH));
    if (!existing && wantsRaise(change)) {
      const reason = input.reasons.get(cluster.uid) ?? `health is ${cluster.health || "unknown"}`;
      result.raise.push({
        clusterUid: cluster.uid,
        kind: CLUSTER_HEALTH,
        reason,
        raisedAt: input.now,
      });
      result.events.push({ status: "raised", alert: CLUSTER_HEALTH, cluster, reason });
    } else if (existing && (isHealthy(cluster.health) || change.kinds.includes("deleted"))) {
      result.resolve.push({ clusterUid: cluster.uid, kind: CLUSTER_HEALTH });
      result.events.push({
        status: "resolved",
        alert: CLUSTER_HEALTH,
        cluster,
        reason: change.kinds.includes("deleted") ? "cluster deleted" : "health is back to Healthy",
      });
    }
  }
  return result;
}

/** Clusters `reconcileAlerts` would raise: known unhealthy with no ClusterHealth raised. */
export function unraisedUnhealthy(
  clusters: readonly ClusterSnap[],
  raised: ReadonlyMap<string, RaisedAlert>,
  supported: ReadonlySet<string>,
): string[] {
  if (!supported.has(CLUSTER_HEALTH)) return [];
  return clusters
    .filter((c) => isKnownUnhealthy(c.health) && !raised.has(alertKey(c.uid, CLUSTER_HEALTH)))
    .map((c) => c.uid);
}

/**
 * Pure: a project's alerts squared with its clusters' health after a spell in which they could
 * not be evaluated (Palette refused its alert kinds). A cluster known unhealthy with no
 * ClusterHealth raised is raised; a raised one that is Healthy again is resolved. Both are
 * announced: nothing told the channels while alerts were unavailable. `raised` must already hold
 * this poll's own raises and resolves, so nothing is said twice.
 */
export function reconcileAlerts(input: {
  clusters: readonly ClusterSnap[];
  raised: ReadonlyMap<string, RaisedAlert>;
  supported: ReadonlySet<string>;
  reasons: ReadonlyMap<string, string>;
  now: string;
}): AlertResult {
  const result: AlertResult = { events: [], raise: [], resolve: [] };
  if (!input.supported.has(CLUSTER_HEALTH)) return result;
  const toRaise = new Set(unraisedUnhealthy(input.clusters, input.raised, input.supported));
  for (const cluster of input.clusters) {
    if (toRaise.has(cluster.uid)) {
      const reason = input.reasons.get(cluster.uid) ?? `health is ${cluster.health}`;
      result.raise.push({
        clusterUid: cluster.uid,
        kind: CLUSTER_HEALTH,
        reason,
        raisedAt: input.now,
      });
      result.events.push({ status: "raised", alert: CLUSTER_HEALTH, cluster, reason });
    } else if (
      input.raised.has(alertKey(cluster.uid, CLUSTER_HEALTH)) &&
      isHealthy(cluster.health)
    ) {
      result.resolve.push({ clusterUid: cluster.uid, kind: CLUSTER_HEALTH });
      result.events.push({
        status: "resolved",
        alert: CLUSTER_HEALTH,
        cluster,
        reason: "health is back to Healthy",
      });
    }
  }
  return result;
}

/** The raised alerts as this poll's results leave them. */
export function afterResults(
  raised: ReadonlyMap<string, RaisedAlert>,
  results: readonly AlertResult[],
): Map<string, RaisedAlert> {
  const after = new Map(raised);
  for (const result of results) {
    for (const alert of result.raise) after.set(alertKey(alert.clusterUid, alert.kind), alert);
    for (const r of result.resolve) after.delete(alertKey(r.clusterUid, r.kind));
  }
  return after;
}

/** Raised alerts of clusters deleted this poll, dropped without a word (alerts unavailable). */
export function resolveDeletedSilently(
  changes: readonly ClusterChange[],
  raised: ReadonlyMap<string, RaisedAlert>,
): AlertResult {
  const resolve = changes
    .filter((c) => c.kinds.includes("deleted"))
    .flatMap((c) => [...raised.values()].filter((a) => a.clusterUid === c.cluster.uid))
    .map((a) => ({ clusterUid: a.clusterUid, kind: a.kind }));
  return { events: [], raise: [], resolve };
}
