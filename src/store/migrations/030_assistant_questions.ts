import type { Migration } from "./migration.ts";

/**
 * The assistant's hourly limit in the shared store (issue 36 item 7): each question's time per
 * person, so ASSISTANT_PER_USER_PER_HOUR holds across replicas, not per replica. A person's row in
 * `assistant_question_users` is written first in the same transaction: on PostgreSQL that row's
 * lock makes two replicas taking for one person at once count one after the other.
 */
export const assistantQuestions: Migration = {
  id: 115,
  name: "assistant_questions",
  up: `
    CREATE TABLE assistant_question_users (
      user_id TEXT PRIMARY KEY,
      asked_at INTEGER NOT NULL
    );
    CREATE TABLE assistant_questions (
      user_id TEXT NOT NULL,
      asked_at INTEGER NOT NULL
    );
    CREATE INDEX assistant_questions_user ON assistant_questions (user_id, asked_at);
  `,
};
