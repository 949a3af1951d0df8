import type { NotifyEvent, NotifyEventKind } from "../../model/channel-digest.ts";
import { type ClusterSnap, isHealthy, isKnownUnhealthy } from "../../model/cluster.ts";
import type { AlertEvent, ChangeKind, ClusterChange } from "../../model/notification.ts";
import type { NotifyEventLog, UnhealthyMoves } from "../../store/notify-events.ts";

/**
 * What a poll cycle hands the digest: its changes and alerts as facts in the event log, and
 * since when clusters have been unhealthy. Pure, except `logForDigest`, which the poll calls
 * inside its one transaction.
 */

/** How long the log keeps an event: a weekly digest's window, and a day to spare. */
export const EVENT_RETENTION_MS = 8 * 24 * 3600_000;

/** Alert reasons can be long (events, conditions); the digest shows a line of each. */
const MAX_DETAIL = 300;

const clamp = (text: string) =>
  text.length <= MAX_DETAIL ? text : `${text.slice(0, MAX_DETAIL - 1)}…`;

/** The change kinds that are facts worth a row; flapping and settled are verdicts on them. */
const LOGGED: Partial<Record<ChangeKind, NotifyEventKind>> = {
  new: "new",
  deleted: "deleted",
  state: "state",
  "health-lost": "health-lost",
  "health-recovered": "health-recovered",
  health: "health",
};

function detailOf(kind: NotifyEventKind, change: ClusterChange): string | undefined {
  const { cluster, previous } = change;
  switch (kind) {
    case "new":
      return cluster.state || undefined;
    case "deleted":
      return previous?.state ? `was ${previous.state}` : undefined;
    case "state":
      return `${previous?.state || "?"} → ${cluster.state}`;
    default:
      return `${previous?.health || "?"} → ${cluster.health}`;
  }
}

function eventOf(cluster: ClusterSnap, kind: NotifyEventKind, at: string, detail?: string) {
  const event: NotifyEvent = {
    at,
    clusterUid: cluster.uid,
    name: cluster.name,
    project: cluster.project,
    tags: [...cluster.tags],
    kind,
  };
  if (detail) event.detail = clamp(detail);
  return event;
}

/**
 * One event per fact, in the order the poll produced them: each change's kinds, then the alerts.
 * Give it the changes before flapping folds them: a flapping cluster's every move counts for
 * "the most flapping clusters".
 */
export function eventsOf(
  changes: readonly ClusterChange[],
  alerts: readonly AlertEvent[],
  at: string,
): NotifyEvent[] {
  const events: NotifyEvent[] = [];
  for (const change of changes) {
    for (const kind of change.kinds) {
      const logged = LOGGED[kind];
      if (logged) events.push(eventOf(change.cluster, logged, at, detailOf(logged, change)));
    }
  }
  for (const alert of alerts) {
    const kind = alert.status === "raised" ? "alert-raised" : "alert-resolved";
    events.push(eventOf(alert.cluster, kind, at, `${alert.alert}: ${alert.reason}`));
  }
  return events;
}

/**
 * A cluster is unhealthy from the poll that first sees a known bad health until one sees it
 * Healthy or deleted; a spell of Unknown (an agent not reporting) does not end it. Clusters
 * already unhealthy at a first look are started "at least since now".
 */
export function unhealthyMoves(
  changes: readonly ClusterChange[],
  baselineUnhealthy: readonly ClusterSnap[],
  at: string,
): UnhealthyMoves {
  const moves: UnhealthyMoves = { start: [], end: [] };
  for (const change of changes) {
    const { cluster } = change;
    if (change.kinds.includes("deleted") || isHealthy(cluster.health)) {
      moves.end.push(cluster.uid);
    } else if (isKnownUnhealthy(cluster.health)) {
      moves.start.push({ clusterUid: cluster.uid, since: at, exact: true });
    }
  }
  for (const cluster of baselineUnhealthy) {
    moves.start.push({ clusterUid: cluster.uid, since: at, exact: false });
  }
  return moves;
}

/** The poll's part, inside its transaction: log the cycle, and forget what is past keeping. */
export async function logForDigest(
  log: NotifyEventLog,
  cycle: {
    changes: readonly ClusterChange[];
    alerts: readonly AlertEvent[];
    baselineUnhealthy: readonly ClusterSnap[];
    at: string;
  },
): Promise<void> {
  await log.append(eventsOf(cycle.changes, cycle.alerts, cycle.at));
  await log.applyUnhealthy(unhealthyMoves(cycle.changes, cycle.baselineUnhealthy, cycle.at));
  await log.prune(new Date(Date.parse(cycle.at) - EVENT_RETENTION_MS).toISOString());
}
