import type { Migration } from "./migration.ts";

/**
 * The assistant (issue 33): each conversation's turns, kept server-side for follow-ups (the
 * question, the answer and the text of the reads it was grounded in, bounded in size and deleted
 * after ASSISTANT_HISTORY_DAYS), and the 👍/👎 each answer got, one vote per person.
 */
export const assistant: Migration = {
  id: 100,
  name: "assistant",
  up: `
    CREATE TABLE assistant_turns (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      conversation TEXT NOT NULL,
      user_id TEXT NOT NULL,
      question TEXT NOT NULL,
      answer TEXT NOT NULL,
      read_text TEXT NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX assistant_turns_conversation ON assistant_turns (conversation, id);
    CREATE INDEX assistant_turns_created_at ON assistant_turns (created_at);
    CREATE TABLE assistant_feedback (
      turn_id INTEGER NOT NULL,
      user_id TEXT NOT NULL,
      vote TEXT NOT NULL CHECK (vote IN ('up', 'down')),
      at INTEGER NOT NULL,
      PRIMARY KEY (turn_id, user_id)
    );
  `,
};
