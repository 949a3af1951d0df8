import type { Clock } from "../clock.ts";
import type { Fleet, SimCluster, SimEvent } from "./fleet.ts";
import { uid, unhealthyReason } from "./fleet.ts";

/**
 * Cluster state as a pure function of the injected clock: an API-created cluster is Pending,
 * then Provisioning, then Running; a deleted one is Deleting, then Deleted. Control overrides
 * (setState/setHealth) win. Deriving instead of mutating on timers keeps ManualClock tests exact.
 */

export interface LifecycleTimes {
  pendingMs: number;
  provisioningMs: number;
  deletingMs: number;
}

export const DEFAULT_LIFECYCLE: LifecycleTimes = {
  pendingMs: 5_000,
  provisioningMs: 20_000,
  deletingMs: 10_000,
};

export interface ClusterCondition {
  state: string;
  /** Healthy | UnHealthy | Unknown (Unknown while the cluster is not Running) */
  health: string;
  reason?: string;
}

function baseState(cluster: SimCluster, now: number, times: LifecycleTimes): string {
  if (cluster.deleteRequestedAt !== undefined) {
    return now < cluster.deleteRequestedAt + times.deletingMs ? "Deleting" : "Deleted";
  }
  if (cluster.stateOverride) return cluster.stateOverride;
  if (cluster.origin === "seed") return cluster.seedState;
  const age = now - cluster.createdAt;
  if (age < times.pendingMs) return "Pending";
  if (age < times.pendingMs + times.provisioningMs) return "Provisioning";
  return "Running";
}

export function clusterCondition(
  cluster: SimCluster,
  now: number,
  times: LifecycleTimes,
): ClusterCondition {
  const state = baseState(cluster, now, times);
  if (cluster.healthOverride) {
    const out: ClusterCondition = { state, health: cluster.healthOverride };
    if (cluster.healthReason) out.reason = cluster.healthReason;
    return out;
  }
  if (state !== "Running") return { state, health: "Unknown" };
  if (cluster.origin === "seed" && cluster.seedHealth !== "Healthy") {
    const out: ClusterCondition = { state, health: cluster.seedHealth };
    if (cluster.seedReason) out.reason = cluster.seedReason;
    return out;
  }
  return { state, health: "Healthy" };
}

/** Every event of a cluster up to `now`, newest first: seeded, lifecycle-derived and added. */
export function clusterEvents(cluster: SimCluster, now: number, times: LifecycleTimes): SimEvent[] {
  const derived: SimEvent[] = [];
  const id = (suffix: string) => `${cluster.uid.slice(0, 16)}${suffix}`;
  const push = (
    suffix: string,
    at: number,
    reason: string,
    message: string,
    severity = "Normal",
  ) => {
    if (at <= now) derived.push({ uid: id(suffix), at, reason, message, severity });
  };
  push("00000001", cluster.createdAt, "ClusterCreated", `Cluster ${cluster.name} created`);
  if (cluster.origin === "api") {
    push(
      "00000002",
      cluster.createdAt + times.pendingMs,
      "ClusterProvisioning",
      `Provisioning ${cluster.provider} infrastructure for ${cluster.name}`,
    );
    push(
      "00000003",
      cluster.createdAt + times.pendingMs + times.provisioningMs,
      "ClusterReady",
      `Cluster ${cluster.name} is running`,
    );
  } else if (cluster.seedState !== "Pending") {
    push("00000002", cluster.createdAt + 60_000, "ClusterProvisioning", "Provisioning started");
    if (cluster.seedState === "Running" || cluster.seedState === "Deleting") {
      push("00000003", cluster.createdAt + 18 * 60_000, "ClusterReady", "Cluster is running");
    }
    if (cluster.seedReason && cluster.seedReasonAt !== undefined) {
      push("00000004", cluster.seedReasonAt, "ClusterUnhealthy", cluster.seedReason, "Warning");
    }
  }
  if (cluster.deleteRequestedAt !== undefined) {
    push("00000005", cluster.deleteRequestedAt, "ClusterDeleting", "Cluster deletion requested");
    push(
      "00000006",
      cluster.deleteRequestedAt + times.deletingMs,
      "ClusterDeleted",
      "Cluster resources released",
    );
  }
  const all = [...derived, ...cluster.events.filter((event) => event.at <= now)];
  // newest first; ties keep insertion order reversed so the latest addition leads
  return all
    .map((event, index) => ({ event, index }))
    .sort((a, b) => b.event.at - a.event.at || b.index - a.index)
    .map(({ event }) => event);
}

export function addClusterEvent(
  fleet: Fleet,
  cluster: SimCluster,
  at: number,
  input: { reason: string; message: string; severity?: string },
): SimEvent {
  const event: SimEvent = {
    uid: uid(fleet.rng),
    at,
    reason: input.reason,
    message: input.message,
    severity: input.severity ?? "Normal",
  };
  cluster.events.push(event);
  return event;
}

/** Sets or clears a health override and records an event that explains the change. */
export function applyHealth(
  fleet: Fleet,
  cluster: SimCluster,
  health: string,
  reason: string | undefined,
  now: number,
): void {
  cluster.healthOverride = health;
  cluster.healthReason = health === "Healthy" ? undefined : reason;
  if (health === "Healthy") {
    addClusterEvent(fleet, cluster, now, {
      reason: "ClusterHealthy",
      message: reason ?? "All health checks pass again",
    });
  } else {
    addClusterEvent(fleet, cluster, now, {
      reason: "ClusterUnhealthy",
      message: reason ?? `Cluster health is ${health}`,
      severity: "Warning",
    });
  }
}

export function applyState(fleet: Fleet, cluster: SimCluster, state: string, now: number): void {
  cluster.stateOverride = state;
  addClusterEvent(fleet, cluster, now, {
    reason: `Cluster${state}`,
    message: `Cluster state changed to ${state}`,
    severity: state === "Failed" ? "Error" : "Normal",
  });
}

/**
 * The demo's pulse: every `everyMs` (real timer) one cluster changes, so a newcomer sees
 * notifications within a minute. Mostly health flips, with a reason in an event; sometimes a
 * Running cluster goes through Updating and back.
 */
export function createAnimator(
  fleet: Fleet,
  clock: Clock,
  times: LifecycleTimes,
): { tick(): void } {
  const updating = new Set<string>();
  const tick = () => {
    const now = clock.now();
    for (const clusterUid of updating) {
      const cluster = fleet.byUid.get(clusterUid);
      updating.delete(clusterUid);
      if (cluster && cluster.stateOverride === "Updating") {
        cluster.stateOverride = undefined;
        addClusterEvent(fleet, cluster, now, {
          reason: "ClusterUpdated",
          message: "Rolling update finished; all nodes run the new profile version",
        });
      }
    }
    const live = fleet.clusters.filter(
      (cluster) => clusterCondition(cluster, now, times).state === "Running",
    );
    if (live.length === 0) return;
    const unhealthy = live.filter(
      (cluster) => clusterCondition(cluster, now, times).health !== "Healthy",
    );
    const roll = fleet.rng.next();
    if (roll < 0.15) {
      const cluster = fleet.rng.pick(live);
      cluster.stateOverride = "Updating";
      updating.add(cluster.uid);
      addClusterEvent(fleet, cluster, now, {
        reason: "ClusterUpdating",
        message: "Applying cluster profile update (rolling worker pool)",
      });
    } else if (unhealthy.length > 0 && (roll < 0.55 || unhealthy.length > live.length * 0.2)) {
      const cluster = fleet.rng.pick(unhealthy);
      applyHealth(fleet, cluster, "Healthy", "Health checks pass again", now);
    } else {
      const cluster = fleet.rng.pick(live);
      applyHealth(fleet, cluster, "UnHealthy", unhealthyReason(cluster, fleet.rng), now);
    }
  };
  return { tick };
}

export function startAnimator(
  fleet: Fleet,
  clock: Clock,
  times: LifecycleTimes,
  everyMs: number,
): () => void {
  const animator = createAnimator(fleet, clock, times);
  const timer = setInterval(animator.tick, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
