import type { SqlDb } from "./sql.ts";

const HOUR_MS = 3_600_000;

/**
 * ASSISTANT_PER_USER_PER_HOUR kept in the shared store (issue 36 item 7), so the bound holds
 * across replicas. A take is one transaction: the person's row is written first (on PostgreSQL
 * its row lock makes takes for one person from two replicas run one after the other; SQLite runs
 * one transaction at a time), then the last hour's questions are counted and, under the bound,
 * this one recorded. The person's questions older than an hour are deleted as they go.
 */
export class AssistantQuestionLimit {
  constructor(private readonly db: SqlDb) {}

  /** undefined when allowed (and counted); else when the oldest question leaves the hour */
  async take(userId: string, now: number, perHour: number): Promise<number | undefined> {
    const user = userId.slice(0, 64);
    return this.db.transaction(async (tx) => {
      await tx.run(
        `INSERT INTO assistant_question_users (user_id, asked_at) VALUES (?, ?)
         ON CONFLICT (user_id) DO UPDATE SET asked_at = excluded.asked_at`,
        [user, now],
      );
      await tx.run("DELETE FROM assistant_questions WHERE user_id = ? AND asked_at <= ?", [
        user,
        now - HOUR_MS,
      ]);
      const row = await tx.get<{ n: number | string; oldest: number | string | null }>(
        `SELECT COUNT(*) AS n, MIN(asked_at) AS oldest FROM assistant_questions
         WHERE user_id = ? AND asked_at > ?`,
        [user, now - HOUR_MS],
      );
      if (Number(row?.n ?? 0) >= perHour) return Number(row?.oldest ?? now) + HOUR_MS;
      await tx.run("INSERT INTO assistant_questions (user_id, asked_at) VALUES (?, ?)", [
        user,
        now,
      ]);
      return undefined;
    });
  }
}
