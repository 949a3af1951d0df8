import type { ClusterSnap } from "./cluster.ts";

/**
 * The data the notification pipeline passes between its pure steps (diff → flapping → alerts →
 * route → digest), stores in the outbox and renders. Plain JSON-able values only.
 */

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

/**
 * Messages of one channel that did not reach Slack, grouped by why: `dead` ones were given up
 * (retries spent, or Slack refused their content even as plain text); `held` ones wait for the
 * channel to take the bot back (it was archived, or the bot removed).
 */
export interface UndeliveredGroup {
  status: "dead" | "held";
  /** e.g. "Slack: invalid_blocks"; plain text, escaped when rendered */
  reason: string;
  count: number;
}
