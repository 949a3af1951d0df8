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
  /** set on the card row that ends a snooze or mute: its thread line says what happened meanwhile */
  held?: HeldSummary;
}

/**
 * What a snooze or mute kept back, said in one line when the last hold of the cluster in the
 * channel ends (src/notify/oncall/held-news.ts builds it, src/views/notification.ts renders it).
 */
export interface HeldSummary {
  /** the holds that ended now (a snooze that ended while a mute went on is not named) */
  ended: Array<{ kind: HoldKind; userId: string; reason?: string }>;
  /** the changes kept meanwhile, oldest first, as short phrases ("Running → Upgrading") */
  changes: string[];
  /** changes kept but left out of `changes` (the list is capped) */
  more: number;
  /** where the cluster stands now */
  now: { state: string; health: string };
  /** who ended it early (Unsnooze, Unmute, `/palette unmute`); absent when its time ran out */
  endedBy?: string;
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

/**
 * An edge host's notice or a site's roll-up (issue 39), rendered when the poll commits (from the
 * bot's record of the hosts as that cycle left them). It travels as a `post` row (the outbox's
 * kinds are a CHECK of the table) carrying `edge` beside its text, as a channel digest does:
 * posted the first time, then edited in place under its `key` (the row's `clusterUid` too:
 * `edge-host:<uid>`, `edge-site:<project>:<site>`) until a row that `closes` it (the host back,
 * every host of the site back, a host deleted); the next dark stretch is a new message.
 */
export interface EdgeNoticePayload {
  text: string;
  /** Block Kit, as src/views/edge-notice.ts renders it (the model knows no Slack types) */
  edge: { key: string; blocks: object[]; closes: boolean };
}

export function isEdgeNotice(payload: unknown): payload is EdgeNoticePayload {
  const edge = (payload as { edge?: unknown } | null)?.edge;
  return (
    typeof edge === "object" && edge !== null && typeof (edge as { key?: unknown }).key === "string"
  );
}

export interface OutboxDraft {
  channel: string;
  kind: OutboxKind;
  clusterUid?: string;
  payload: CardPayload | DigestPayload | SummaryPayload | EdgeNoticePayload | { text: string };
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

/**
 * What on-call people did to one channel's card of one cluster (issue "On-call from the card"):
 * shown on the card, and deciding what the pipeline posts. Times are epoch milliseconds.
 */
export interface CardAck {
  userId: string;
  at: number;
}

export type HoldKind = "snooze" | "mute";

/** A snooze or a mute of one cluster in one channel, until `untilMs`. */
export interface Hold {
  channel: string;
  clusterUid: string;
  kind: HoldKind;
  /** the cluster's name when the hold began (for lists; the card shows the current one) */
  clusterName: string;
  projectUid: string;
  userId: string;
  /** plain text, escaped when rendered */
  reason?: string;
  startedAt: number;
  untilMs: number;
}

/**
 * A snooze or mute of one card began or ended. `queued`: an end summary went into the outbox
 * (the sender will edit the card with it); otherwise only the card's status needs redrawing.
 */
export interface HoldChange {
  channel: string;
  clusterUid: string;
  queued: boolean;
}

export interface CardStatus {
  ack?: CardAck;
  snooze?: Hold;
  mute?: Hold;
  /** the radar's fleet-wide list shows a repave of it pending approval (no read per card) */
  repavePending?: boolean;
}

/**
 * The card's interactive elements. Ids are fixed (the Slack edge routes on them); each element's
 * value is `CardActionValue` as JSON.
 */
export const CARD_ACTIONS = {
  ack: "notify_card:ack",
  snooze: "notify_card:snooze",
  unsnooze: "notify_card:unsnooze",
  mute: "notify_card:mute",
  unmute: "notify_card:unmute",
} as const;

/** What a card action carries: which cluster (the channel and message come with the click). */
export interface CardActionValue {
  c: string;
  p?: string;
}

/** Snooze choices on the card; `weekday` = until next weekday 09:00 in the user's time zone. */
export const SNOOZE_CHOICES = ["1h", "4h", "24h", "weekday"] as const;
export type SnoozeChoice = (typeof SNOOZE_CHOICES)[number];
