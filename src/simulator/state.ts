import type { Clock } from "../clock.ts";
import { isProvider, type Provider } from "../palette/providers-list.ts";
import { type Churn, type ChurnOptions, createChurn } from "./churn.ts";
import { addCluster, buildCluster, type Fleet, type SimCluster } from "./fleet.ts";
import {
  addClusterEvent,
  applyHealth,
  applyState,
  type ClusterCondition,
  clusterCondition,
  type LifecycleTimes,
} from "./lifecycle.ts";
import type { FleetCluster } from "./types.ts";

/**
 * The simulator's mutable world behind one facade: the fleet, the clock and the lifecycle
 * times. Both the HTTP routes and `control` go through it.
 */
export class SimState {
  #churn: Churn | undefined;

  constructor(
    readonly fleet: Fleet,
    readonly clock: Clock,
    readonly times: LifecycleTimes,
  ) {}

  /** Changes the fleet at a steady rate of the clock (applied by `sync`). */
  startChurn(options: ChurnOptions): void {
    this.#churn = createChurn(this.fleet, this.clock, this.times, options);
  }

  /** Brings the fleet up to the clock: applies the churn due. Called before every read. */
  sync(): void {
    this.#churn?.catchUp();
  }

  /** The clusters Palette lists, soft-deleted ones only when asked for. */
  clusters(projectUid?: string, includeDeleted = false): SimCluster[] {
    return this.fleet.clusters.filter(
      (cluster) =>
        (!projectUid || cluster.projectUid === projectUid) &&
        (includeDeleted || this.condition(cluster).state !== "Deleted"),
    );
  }

  now(): number {
    return this.clock.now();
  }

  condition(cluster: SimCluster): ClusterCondition {
    return clusterCondition(cluster, this.clock.now(), this.times);
  }

  cluster(uid: string): SimCluster | undefined {
    return this.fleet.byUid.get(uid);
  }

  requireCluster(uid: string): SimCluster {
    const cluster = this.cluster(uid);
    if (!cluster) throw new Error(`no cluster with uid ${uid}`);
    return cluster;
  }

  clusterByConfig(configUid: string): SimCluster | undefined {
    return this.fleet.clusters.find((cluster) => cluster.cloudConfigUid === configUid);
  }

  project(uid: string) {
    return this.fleet.projects.find((project) => project.uid === uid);
  }

  view(cluster: SimCluster): FleetCluster {
    const condition = this.condition(cluster);
    return {
      uid: cluster.uid,
      name: cluster.name,
      projectUid: cluster.projectUid,
      provider: cluster.provider,
      state: condition.state,
      health: condition.health,
      labels: { ...cluster.labels },
    };
  }

  setState(uid: string, state: string): void {
    applyState(this.fleet, this.requireCluster(uid), state, this.now());
  }

  setHealth(uid: string, health: string, reason?: string): void {
    applyHealth(this.fleet, this.requireCluster(uid), health, reason, this.now());
  }

  addEvent(uid: string, event: { reason: string; message: string; severity?: string }): void {
    addClusterEvent(this.fleet, this.requireCluster(uid), this.now(), event);
  }

  /** A live (not Deleted) cluster of this name in the project, for the duplicate check. */
  nameTaken(projectUid: string, name: string): boolean {
    return this.fleet.clusters.some(
      (cluster) =>
        cluster.projectUid === projectUid &&
        cluster.name === name &&
        this.condition(cluster).state !== "Deleted",
    );
  }

  addCluster(input: {
    name: string;
    projectUid: string;
    provider: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    origin?: "seed" | "api";
    pools?: SimCluster["pools"];
    cloudAccountUid?: string;
    profileUid?: string;
  }): SimCluster {
    if (!isProvider(input.provider)) throw new Error(`unknown provider ${input.provider}`);
    if (!this.project(input.projectUid)) throw new Error(`unknown project ${input.projectUid}`);
    const cluster = buildCluster(this.fleet, {
      name: input.name,
      projectUid: input.projectUid,
      provider: input.provider as Provider,
      labels: input.labels ?? {},
      annotations: input.annotations ?? {},
      createdAt: this.now(),
      origin: input.origin ?? "seed",
      ...(input.pools ? { pools: input.pools } : {}),
      ...(input.cloudAccountUid ? { cloudAccountUid: input.cloudAccountUid } : {}),
      ...(input.profileUid ? { profileUid: input.profileUid } : {}),
    });
    addCluster(this.fleet, cluster);
    return cluster;
  }

  /** the cluster's backup policy names a location (a bucket registered in Palette) */
  setBackupLocation(uid: string, name: string): void {
    const cluster = this.requireCluster(uid);
    const location = { uid: `bsl-${uid.slice(0, 12)}`, name };
    cluster.backup = { location, requests: cluster.backup?.requests ?? [] };
  }

  /** Palette found pack changes that repave the nodes and holds them for approval */
  setRepavePending(uid: string, reasons: string[]): void {
    this.requireCluster(uid).repave = { state: "Pending", reasons, at: this.now() };
  }

  /** a PUT of the pool's size: the new machines provision, the removed ones drain */
  resizePool(cluster: SimCluster, poolName: string, size: number): boolean {
    const pool = cluster.pools.find((entry) => entry.name === poolName);
    if (!pool) return false;
    if (pool.size !== size) {
      pool.resize = { from: pool.size, at: this.now() };
      pool.size = size;
    }
    return true;
  }

  /** how long a resized pool's machines take to join or leave */
  get resizeMs(): number {
    return this.times.provisioningMs;
  }

  deleteCluster(cluster: SimCluster): void {
    if (cluster.deleteRequestedAt !== undefined) return;
    cluster.deleteRequestedAt = this.now();
    cluster.stateOverride = undefined;
  }
}
