import type { SqlExecutor } from "./sql.ts";

/** An earlier attempt to post one message: the token its metadata carries, and when. */
export interface PostAttempt {
  key: string;
  channel: string;
  /** the thread the message went to; undefined for a message in the channel itself */
  threadTs?: string;
  token: string;
  /** epoch ms by the database's clock when the marker was committed, just before the post */
  atMs: number;
  /** how long ago that was, by the database's clock, when it was read */
  ageMs: number;
}

interface Raw {
  key: string;
  channel: string;
  thread_ts: string | null;
  token: string;
  at_ms: number | string;
  age_ms: number | string;
}

/**
 * The database's own clock in epoch ms: every replica stamps markers by one clock, so a marker
 * written by a replica whose clock is off still bounds where Slack put the message.
 */
export function databaseNowMs(dialect: "sqlite" | "postgres"): string {
  return dialect === "postgres"
    ? "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)"
    : "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)";
}

/**
 * Attempt markers (migration 110), one per message key, replaced by each new attempt. A marker
 * is history once its message is settled: `clear` drops it with the write that records the ts,
 * `prune` whatever a crash left behind.
 */
export class PostAttemptStore {
  constructor(
    private readonly db: SqlExecutor,
    private readonly dialect: "sqlite" | "postgres",
  ) {}

  async get(key: string): Promise<PostAttempt | undefined> {
    const raw = await this.db.get<Raw>(
      `SELECT *, ${databaseNowMs(this.dialect)} - at_ms AS age_ms FROM post_attempts WHERE key = ?`,
      [key],
    );
    if (!raw) return undefined;
    return {
      key: raw.key,
      channel: raw.channel,
      threadTs: raw.thread_ts ?? undefined,
      token: raw.token,
      atMs: Number(raw.at_ms),
      ageMs: Number(raw.age_ms),
    };
  }

  /** Records a new attempt (replacing any earlier one); returns its time by the database's clock. */
  async mark(attempt: Omit<PostAttempt, "atMs" | "ageMs">): Promise<number> {
    const row = await this.db.get<{ at_ms: number | string }>(
      `INSERT INTO post_attempts (key, channel, thread_ts, token, at_ms)
       VALUES (?, ?, ?, ?, ${databaseNowMs(this.dialect)})
       ON CONFLICT (key) DO UPDATE SET channel = excluded.channel, thread_ts = excluded.thread_ts,
         token = excluded.token, at_ms = excluded.at_ms
       RETURNING at_ms`,
      [attempt.key, attempt.channel, attempt.threadTs ?? null, attempt.token],
    );
    return Number(row!.at_ms);
  }

  async clear(key: string): Promise<void> {
    await this.db.run("DELETE FROM post_attempts WHERE key = ?", [key]);
  }

  /**
   * markers older than `ageMs` by the database's clock, the one they were stamped by (a crash
   * between the post and the write that settles it leaves its marker behind)
   */
  async pruneOlderThan(ageMs: number): Promise<number> {
    const result = await this.db.run(
      `DELETE FROM post_attempts WHERE at_ms < ${databaseNowMs(this.dialect)} - ?`,
      [ageMs],
    );
    return result.changes;
  }

  /** markers older than `beforeMs` (epoch ms): their rows were settled or given up long ago */
  async prune(beforeMs: number): Promise<number> {
    const result = await this.db.run("DELETE FROM post_attempts WHERE at_ms < ?", [beforeMs]);
    return result.changes;
  }
}
