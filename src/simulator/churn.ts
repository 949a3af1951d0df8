import type { Clock } from "../clock.ts";
import type { Fleet, SimCluster } from "./fleet.ts";
import { unhealthyReason } from "./fleet.ts";
import {
  addClusterEvent,
  applyHealth,
  applyState,
  clusterCondition,
  type LifecycleTimes,
} from "./lifecycle.ts";

/**
 * `--churn`: state and health changes at a steady rate on the simulator's clock. Nothing runs on
 * a timer: whenever the world is read, the changes due since the last read are applied, so an
 * injected ManualClock drives churn exactly and a 50,000-cluster fleet costs nothing between
 * requests.
 *
 * One change in five is a state change: a random Running cluster goes Updating for
 * `updatingMs` and comes back by itself. The others are health changes on random Running
 * clusters: an unhealthy one recovers, a healthy one turns unhealthy with the probability that
 * keeps the unhealthy share near `targetUnhealthy` (else another cluster is drawn).
 */

export interface ChurnOptions {
  perMinute: number;
  /** the share of unhealthy clusters churn settles at; default 0.07 (the usual fleet's) */
  targetUnhealthy?: number;
  /** how long an update takes; default 30 s */
  updatingMs?: number;
}

export interface Churn {
  /** applies every change due by now; returns how many it applied */
  catchUp(): number;
  /** changes applied so far */
  applied(): number;
}

/** Bounds one catch-up after a long jump of the clock; the rest are skipped, not queued. */
const MAX_BATCH = 10_000;
/** The share of changes that are state changes (Updating and back). */
const STATE_SHARE = 0.2;
/** Tries to find a Running cluster for one change; a fleet that is mostly not Running gives up. */
const MAX_TRIES = 32;

export function createChurn(
  fleet: Fleet,
  clock: Clock,
  times: LifecycleTimes,
  options: ChurnOptions,
): Churn {
  const started = clock.now();
  const periodMs = 60_000 / options.perMinute;
  const target = Math.min(0.95, Math.max(0, options.targetUnhealthy ?? 0.07));
  const sicken = target / (1 - target);
  const updatingMs = options.updatingMs ?? 30_000;
  const updating = new Map<string, number>();
  let due = 0;
  let applied = 0;

  const finishUpdates = (now: number) => {
    for (const [uid, until] of updating) {
      if (until > now) continue;
      updating.delete(uid);
      const cluster = fleet.byUid.get(uid);
      if (cluster?.stateOverride !== "Updating") continue;
      cluster.stateOverride = undefined;
      addClusterEvent(fleet, cluster, until, {
        reason: "ClusterUpdated",
        message: "Rolling update finished; all nodes run the new profile version",
      });
    }
  };

  /** A random Running cluster that `wanted` accepts, or none after MAX_TRIES draws. */
  const pick = (now: number, wanted: (healthy: boolean) => boolean): SimCluster | undefined => {
    const { clusters } = fleet;
    for (let tries = 0; tries < MAX_TRIES && clusters.length > 0; tries++) {
      const cluster = clusters[Math.floor(fleet.rng.next() * clusters.length)] as SimCluster;
      const condition = clusterCondition(cluster, now, times);
      if (condition.state === "Running" && wanted(condition.health === "Healthy")) return cluster;
    }
    return undefined;
  };

  const change = (at: number) => {
    if (fleet.rng.next() < STATE_SHARE) {
      const cluster = pick(at, () => true);
      if (!cluster) return;
      applyState(fleet, cluster, "Updating", at);
      updating.set(cluster.uid, at + updatingMs);
      return;
    }
    // an unhealthy draw always qualifies, a healthy one with probability `sicken`
    const cluster = pick(at, (healthy) => !healthy || fleet.rng.next() < sicken);
    if (!cluster) return;
    if (clusterCondition(cluster, at, times).health !== "Healthy") {
      applyHealth(fleet, cluster, "Healthy", "Health checks pass again", at);
    } else {
      applyHealth(fleet, cluster, "UnHealthy", unhealthyReason(cluster, fleet.rng), at);
    }
  };

  return {
    catchUp() {
      if (!(periodMs > 0) || !Number.isFinite(periodMs)) return 0;
      const now = clock.now();
      const nowDue = Math.floor((now - started) / periodMs);
      const skipped = Math.max(0, nowDue - due - MAX_BATCH);
      let count = 0;
      for (let k = due + skipped + 1; k <= nowDue; k++) {
        const at = started + k * periodMs;
        finishUpdates(at);
        change(at);
        count++;
      }
      due = Math.max(due, nowDue);
      finishUpdates(now);
      applied += count;
      return count;
    },
    applied: () => applied,
  };
}
