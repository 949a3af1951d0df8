import type { OutboxDraft, OutboxKind, UndeliveredGroup } from "../model/notification.ts";
import type { Db } from "./db.ts";

export interface OutboxRow {
  id: number;
  channel: string;
  kind: OutboxKind;
  payload: unknown;
  clusterUid?: string;
  createdAt: string;
  attempts: number;
  nextAttemptAt: number;
  /** progress inside a two-call row (card update, then thread line) */
  step: number;
  /** Slack refused the blocks once: send text only */
  plainText: boolean;
}

interface Raw {
  id: number;
  channel: string;
  kind: OutboxKind;
  payload: string;
  cluster_uid: string | null;
  created_at: string;
  attempts: number;
  next_attempt_at: number;
  step: number;
  plain_text: number;
}

const toRow = (raw: Raw): OutboxRow => ({
  id: raw.id,
  channel: raw.channel,
  kind: raw.kind,
  payload: JSON.parse(raw.payload) as unknown,
  clusterUid: raw.cluster_uid ?? undefined,
  createdAt: raw.created_at,
  attempts: raw.attempts,
  nextAttemptAt: raw.next_attempt_at,
  step: raw.step,
  plainText: raw.plain_text === 1,
});

/** what the sender waits on: not sent, not held, not given up */
const PENDING = "sent_at IS NULL AND parked_reason IS NULL";

/**
 * Messages waiting for Slack, in the order they were produced (the autoincrement id). A row
 * stays until Slack accepted it; `sent_at` is set in the same transaction that stores the ts.
 * A row not sent is pending, held (`parked_reason`: its channel is closed to the bot) or a dead
 * letter (`dead_at` too: given up); held and dead rows never block the rows after them, and
 * `requeue` makes them pending again, in their original order.
 */
export class OutboxStore {
  constructor(private readonly db: Db) {}

  add(draft: OutboxDraft, at: string): number {
    const info = this.db
      .prepare(
        "INSERT INTO notify_outbox (channel, kind, payload, cluster_uid, created_at) VALUES (?, ?, ?, ?, ?)",
      )
      .run(draft.channel, draft.kind, JSON.stringify(draft.payload), draft.clusterUid ?? null, at);
    return Number(info.lastInsertRowid);
  }

  /** The oldest pending row of every channel: a channel's rows go out strictly in order. */
  heads(): OutboxRow[] {
    const rows = this.db
      .prepare(
        `SELECT o.* FROM notify_outbox o
         JOIN (SELECT channel, MIN(id) AS id FROM notify_outbox
               WHERE ${PENDING} GROUP BY channel) h ON h.id = o.id
         ORDER BY o.id`,
      )
      .all() as Raw[];
    return rows.map(toRow);
  }

  pendingCount(channel?: string): number {
    const sql = `SELECT COUNT(*) AS n FROM notify_outbox WHERE ${PENDING}`;
    const row = (
      channel ? this.db.prepare(`${sql} AND channel = ?`).get(channel) : this.db.prepare(sql).get()
    ) as { n: number };
    return row.n;
  }

  /** depth and the oldest waiting row's age, dead letters and held rows, for /metrics */
  stats(nowMs: number): {
    depth: number;
    oldestAgeSeconds: number;
    deadLetters: number;
    parked: number;
  } {
    const row = this.db
      .prepare(
        `SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM notify_outbox WHERE ${PENDING}`,
      )
      .get() as { n: number; oldest: string | null };
    const setAside = this.db
      .prepare(
        `SELECT COUNT(dead_at) AS dead, COUNT(*) - COUNT(dead_at) AS held FROM notify_outbox
         WHERE sent_at IS NULL AND parked_reason IS NOT NULL`,
      )
      .get() as { dead: number; held: number };
    const oldest = row.oldest ? Date.parse(row.oldest) : Number.NaN;
    return {
      depth: row.n,
      oldestAgeSeconds: Number.isNaN(oldest) ? 0 : Math.max(0, (nowMs - oldest) / 1000),
      deadLetters: setAside.dead,
      parked: setAside.held,
    };
  }

  markSent(id: number, at: string): void {
    this.db.prepare("UPDATE notify_outbox SET sent_at = ? WHERE id = ?").run(at, id);
  }

  setStep(id: number, step: number): void {
    this.db.prepare("UPDATE notify_outbox SET step = ? WHERE id = ?").run(step, id);
  }

  /** a failed attempt: counts toward the retry cap */
  retryLater(id: number, nextAttemptAt: number): void {
    this.db
      .prepare("UPDATE notify_outbox SET attempts = attempts + 1, next_attempt_at = ? WHERE id = ?")
      .run(nextAttemptAt, id);
  }

  /** wait without counting an attempt (Slack asked us to slow down, or is itself away) */
  deferTo(id: number, nextAttemptAt: number): void {
    this.db
      .prepare("UPDATE notify_outbox SET next_attempt_at = ? WHERE id = ?")
      .run(nextAttemptAt, id);
  }

  /** Slack refused the row's blocks: from now on it goes out as text only */
  usePlainText(id: number): void {
    this.db.prepare("UPDATE notify_outbox SET plain_text = 1 WHERE id = ?").run(id);
  }

  park(id: number, reason: string): void {
    this.db.prepare("UPDATE notify_outbox SET parked_reason = ? WHERE id = ?").run(reason, id);
  }

  /** given up: kept, listed and counted, until `requeue` sends it again */
  deadLetter(id: number, reason: string, at: string): void {
    this.db
      .prepare(
        "UPDATE notify_outbox SET parked_reason = ?, dead_at = ? WHERE id = ? AND sent_at IS NULL",
      )
      .run(reason, at, id);
  }

  parkChannel(channel: string, reason: string): number {
    return this.db
      .prepare(
        "UPDATE notify_outbox SET parked_reason = ? WHERE channel = ? AND sent_at IS NULL AND parked_reason IS NULL",
      )
      .run(reason, channel).changes;
  }

  /**
   * The channel's held rows, and its dead letters too unless `heldOnly`, pending again with a
   * fresh retry budget. Ids do not change, so they go out in their original order, before the
   * channel's newer rows.
   */
  requeue(channel: string, options: { heldOnly?: boolean } = {}): number {
    const which = options.heldOnly ? " AND dead_at IS NULL" : "";
    return this.db
      .prepare(
        `UPDATE notify_outbox
         SET parked_reason = NULL, dead_at = NULL, attempts = 0, next_attempt_at = 0, plain_text = 0
         WHERE channel = ? AND sent_at IS NULL AND parked_reason IS NOT NULL${which}`,
      )
      .run(channel).changes;
  }

  /** the channel's rows that did not reach Slack, by status and reason, most first */
  undelivered(channel: string): UndeliveredGroup[] {
    const rows = this.db
      .prepare(
        `SELECT CASE WHEN dead_at IS NULL THEN 'held' ELSE 'dead' END AS status,
                parked_reason AS reason, COUNT(*) AS count
         FROM notify_outbox WHERE channel = ? AND sent_at IS NULL AND parked_reason IS NOT NULL
         GROUP BY 1, 2 ORDER BY count DESC, MIN(id)`,
      )
      .all(channel) as UndeliveredGroup[];
    return rows.map((row) => ({ status: row.status, reason: row.reason, count: row.count }));
  }

  /** Sent rows older than `before` (ISO) are history nobody reads: keep the table small. */
  prune(before: string): number {
    return this.db
      .prepare("DELETE FROM notify_outbox WHERE sent_at IS NOT NULL AND sent_at < ?")
      .run(before).changes;
  }
}
