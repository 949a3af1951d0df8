import type { OutboxDraft, OutboxKind, UndeliveredGroup } from "../model/notification.ts";
import type { SqlExecutor } from "./sql.ts";

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
  constructor(private readonly db: SqlExecutor) {}

  async add(draft: OutboxDraft, at: string): Promise<number> {
    const row = await this.db.get<{ id: number }>(
      `INSERT INTO notify_outbox (channel, kind, payload, cluster_uid, created_at)
       VALUES (?, ?, ?, ?, ?) RETURNING id`,
      [draft.channel, draft.kind, JSON.stringify(draft.payload), draft.clusterUid ?? null, at],
    );
    return Number(row!.id);
  }

  /** The oldest pending row of every channel: a channel's rows go out strictly in order. */
  async heads(): Promise<OutboxRow[]> {
    const rows = await this.db.all<Raw>(
      `SELECT o.* FROM notify_outbox o
       JOIN (SELECT channel, MIN(id) AS id FROM notify_outbox
             WHERE ${PENDING} GROUP BY channel) h ON h.id = o.id
       ORDER BY o.id`,
    );
    return rows.map(toRow);
  }

  /** A row of this channel and key (cards: the cluster; edge notices: their key) not sent yet. */
  async hasPending(channel: string, clusterUid: string): Promise<boolean> {
    const row = await this.db.get<{ id: number }>(
      `SELECT id FROM notify_outbox WHERE channel = ? AND cluster_uid = ? AND ${PENDING} LIMIT 1`,
      [channel, clusterUid],
    );
    return row !== undefined;
  }

  async pendingCount(channel?: string): Promise<number> {
    const sql = `SELECT COUNT(*) AS n FROM notify_outbox WHERE ${PENDING}`;
    const row = channel
      ? await this.db.get<{ n: number }>(`${sql} AND channel = ?`, [channel])
      : await this.db.get<{ n: number }>(sql);
    return Number(row!.n);
  }

  /** depth and the oldest waiting row's age, dead letters and held rows, for /metrics */
  async stats(nowMs: number): Promise<{
    depth: number;
    oldestAgeSeconds: number;
    deadLetters: number;
    parked: number;
  }> {
    const row = (await this.db.get<{ n: number; oldest: string | null }>(
      `SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM notify_outbox WHERE ${PENDING}`,
    ))!;
    const setAside = (await this.db.get<{ dead: number; held: number }>(
      `SELECT COUNT(dead_at) AS dead, COUNT(*) - COUNT(dead_at) AS held FROM notify_outbox
       WHERE sent_at IS NULL AND parked_reason IS NOT NULL`,
    ))!;
    const oldest = row.oldest ? Date.parse(row.oldest) : Number.NaN;
    return {
      depth: Number(row.n),
      oldestAgeSeconds: Number.isNaN(oldest) ? 0 : Math.max(0, (nowMs - oldest) / 1000),
      deadLetters: Number(setAside.dead),
      parked: Number(setAside.held),
    };
  }

  async markSent(id: number, at: string): Promise<void> {
    await this.db.run("UPDATE notify_outbox SET sent_at = ? WHERE id = ?", [at, id]);
  }

  async setStep(id: number, step: number): Promise<void> {
    await this.db.run("UPDATE notify_outbox SET step = ? WHERE id = ?", [step, id]);
  }

  /** a failed attempt: counts toward the retry cap */
  async retryLater(id: number, nextAttemptAt: number): Promise<void> {
    await this.db.run(
      "UPDATE notify_outbox SET attempts = attempts + 1, next_attempt_at = ? WHERE id = ?",
      [nextAttemptAt, id],
    );
  }

  /** wait without counting an attempt (Slack asked us to slow down, or is itself away) */
  async deferTo(id: number, nextAttemptAt: number): Promise<void> {
    await this.db.run("UPDATE notify_outbox SET next_attempt_at = ? WHERE id = ?", [
      nextAttemptAt,
      id,
    ]);
  }

  /** Slack refused the row's blocks: from now on it goes out as text only */
  async usePlainText(id: number): Promise<void> {
    await this.db.run("UPDATE notify_outbox SET plain_text = 1 WHERE id = ?", [id]);
  }

  async park(id: number, reason: string): Promise<void> {
    await this.db.run("UPDATE notify_outbox SET parked_reason = ? WHERE id = ?", [reason, id]);
  }

  /** given up: kept, listed and counted, until `requeue` sends it again */
  async deadLetter(id: number, reason: string, at: string): Promise<void> {
    await this.db.run(
      "UPDATE notify_outbox SET parked_reason = ?, dead_at = ? WHERE id = ? AND sent_at IS NULL",
      [reason, at, id],
    );
  }

  async parkChannel(channel: string, reason: string): Promise<number> {
    const result = await this.db.run(
      "UPDATE notify_outbox SET parked_reason = ? WHERE channel = ? AND sent_at IS NULL AND parked_reason IS NULL",
      [reason, channel],
    );
    return result.changes;
  }

  /**
   * The channel's held rows, and its dead letters too unless `heldOnly`, pending again with a
   * fresh retry budget. Ids do not change, so they go out in their original order, before the
   * channel's newer rows.
   */
  async requeue(channel: string, options: { heldOnly?: boolean } = {}): Promise<number> {
    const which = options.heldOnly ? " AND dead_at IS NULL" : "";
    const result = await this.db.run(
      `UPDATE notify_outbox
       SET parked_reason = NULL, dead_at = NULL, attempts = 0, next_attempt_at = 0, plain_text = 0
       WHERE channel = ? AND sent_at IS NULL AND parked_reason IS NOT NULL${which}`,
      [channel],
    );
    return result.changes;
  }

  /** the channel's rows that did not reach Slack, by status and reason, most first */
  async undelivered(channel: string): Promise<UndeliveredGroup[]> {
    const rows = await this.db.all<UndeliveredGroup>(
      `SELECT CASE WHEN dead_at IS NULL THEN 'held' ELSE 'dead' END AS status,
              parked_reason AS reason, COUNT(*) AS count
       FROM notify_outbox WHERE channel = ? AND sent_at IS NULL AND parked_reason IS NOT NULL
       GROUP BY 1, 2 ORDER BY count DESC, MIN(id)`,
      [channel],
    );
    return rows.map((row) => ({
      status: row.status,
      reason: row.reason,
      count: Number(row.count),
    }));
  }

  /** Sent rows older than `before` (ISO) are history nobody reads: keep the table small. */
  async prune(before: string): Promise<number> {
    const result = await this.db.run(
      "DELETE FROM notify_outbox WHERE sent_at IS NOT NULL AND sent_at < ?",
      [before],
    );
    return result.changes;
  }
}
