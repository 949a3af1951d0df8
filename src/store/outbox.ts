import type { OutboxDraft, OutboxKind } from "../model/notification.ts";
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
});

/**
 * Messages waiting for Slack, in the order they were produced (the autoincrement id). A row
 * stays until Slack accepted it; `sent_at` is set in the same transaction that stores the ts.
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
               WHERE sent_at IS NULL AND parked_reason IS NULL GROUP BY channel) h ON h.id = o.id
         ORDER BY o.id`,
      )
      .all() as Raw[];
    return rows.map(toRow);
  }

  pendingCount(channel?: string): number {
    const sql =
      "SELECT COUNT(*) AS n FROM notify_outbox WHERE sent_at IS NULL AND parked_reason IS NULL";
    const row = (
      channel ? this.db.prepare(`${sql} AND channel = ?`).get(channel) : this.db.prepare(sql).get()
    ) as { n: number };
    return row.n;
  }

  /** depth and the oldest waiting row's age, for /metrics */
  stats(nowMs: number): { depth: number; oldestAgeSeconds: number } {
    const row = this.db
      .prepare(
        "SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM notify_outbox WHERE sent_at IS NULL AND parked_reason IS NULL",
      )
      .get() as { n: number; oldest: string | null };
    const oldest = row.oldest ? Date.parse(row.oldest) : Number.NaN;
    return {
      depth: row.n,
      oldestAgeSeconds: Number.isNaN(oldest) ? 0 : Math.max(0, (nowMs - oldest) / 1000),
    };
  }

  markSent(id: number, at: string): void {
    this.db.prepare("UPDATE notify_outbox SET sent_at = ? WHERE id = ?").run(at, id);
  }

  setStep(id: number, step: number): void {
    this.db.prepare("UPDATE notify_outbox SET step = ? WHERE id = ?").run(step, id);
  }

  retryLater(id: number, nextAttemptAt: number): void {
    this.db
      .prepare("UPDATE notify_outbox SET attempts = attempts + 1, next_attempt_at = ? WHERE id = ?")
      .run(nextAttemptAt, id);
  }

  park(id: number, reason: string): void {
    this.db.prepare("UPDATE notify_outbox SET parked_reason = ? WHERE id = ?").run(reason, id);
  }

  parkChannel(channel: string, reason: string): number {
    return this.db
      .prepare(
        "UPDATE notify_outbox SET parked_reason = ? WHERE channel = ? AND sent_at IS NULL AND parked_reason IS NULL",
      )
      .run(reason, channel).changes;
  }

  /** Sent rows older than `before` (ISO) are history nobody reads: keep the table small. */
  prune(before: string): number {
    return this.db
      .prepare("DELETE FROM notify_outbox WHERE sent_at IS NOT NULL AND sent_at < ?")
      .run(before).changes;
  }
}
