/**
 * The data the notification pipeline passes between its pure steps (diff → flapping → alerts →
 * route → digest) and stores in the outbox. Plain JSON-able values only.
 */

export type SubscriptionKind = "clusters" | "alerts" | "all";

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

export type ChangeKind =
  | "new"
  | "state"
  | "health-lost"
  | "health-recovered"
  | "health"
  | "deleted"
  | "flapping"
  | "settled";

export interface ClusterChange {
  cluster: ClusterSnap;
  previous?: { state: string; health: string };
  kinds: ChangeKind[];
  /** health got worse: the thread line is also broadcast to the channel */
  worse: boolean;
}

export interface AlertEvent {
  status: "raised" | "resolved";
  /** alert kind as Palette names it, e.g. ClusterHealth */
  alert: string;
  cluster: ClusterSnap;
  reason: string;
}

export interface Subscription {
  id: number;
  channel: string;
  kind: SubscriptionKind;
  project?: string;
  tag?: string;
  pausedReason?: string;
  createdBy: string;
  createdAt: string;
}

/** Payload of an outbox `card` row: one cluster's news for one channel in one poll. */
export interface CardPayload {
  cluster: ClusterSnap;
  previous?: { state: string; health: string };
  kinds: ChangeKind[];
  /** human lines for the thread (plain text, escaped when rendered) */
  lines: string[];
  worse: boolean;
  alerts: AlertEvent[];
  at: string;
}

export interface DigestPayload {
  project: string;
  total: number;
  counts: Record<string, number>;
  /** a few lines, newest state of each cluster */
  lines: string[];
  at: string;
}

export interface SummaryPayload {
  projects: string[];
  total: number;
  byState: Record<string, number>;
  unhealthy: Array<{ name: string; health: string }>;
  at: string;
}

export type OutboxKind = "post" | "card" | "thread" | "digest" | "summary";

export interface OutboxDraft {
  channel: string;
  kind: OutboxKind;
  clusterUid?: string;
  payload: CardPayload | DigestPayload | SummaryPayload | { text: string };
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
