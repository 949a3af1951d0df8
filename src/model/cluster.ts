/** What the bot remembers of one cluster between polls, and how it judges a cluster's health. */

/** What the bot remembers of one cluster between polls. */
export interface ClusterSnap {
  uid: string;
  name: string;
  /** project UID; "" for tenant scope */
  project: string;
  state: string;
  /** Healthy | UnHealthy | Unknown | "" (Palette did not say) */
  health: string;
  /** `key:value` or a plain `tag` */
  tags: string[];
}

export const HEALTHY = "Healthy";

export function isHealthy(health: string): boolean {
  return health.toLowerCase() === "healthy";
}

/**
 * No health to judge yet: Palette did not say (`""`) or says `Unknown` (a cluster still being
 * provisioned, an agent not reporting yet). Nothing is known to be wrong.
 */
export function isHealthUnknown(health: string): boolean {
  const lower = health.trim().toLowerCase();
  return lower === "" || lower === "unknown";
}

/** A health that is known and is not Healthy: what raises ClusterHealth. */
export function isKnownUnhealthy(health: string): boolean {
  return !isHealthUnknown(health) && !isHealthy(health);
}

/**
 * The state and health of a cluster with nothing to watch. An incremental poll asks Palette only
 * for clusters that are not both (and confirms the ones that leave that set); the store's partial
 * index `notify_snapshots_unsteady` spells the same condition. Exact, as Palette's search is.
 */
export const STEADY_STATE = "Running";
export const STEADY_HEALTH = HEALTHY;

export function isSteady(cluster: Pick<ClusterSnap, "state" | "health">): boolean {
  return cluster.state === STEADY_STATE && cluster.health === STEADY_HEALTH;
}
