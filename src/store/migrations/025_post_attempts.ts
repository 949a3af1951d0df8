import type { Migration } from "./migration.ts";

/**
 * Attempt markers (issue 37 item 1): before a message goes to Slack, the sender commits a random
 * token and the time (the database's clock) under the message's key (`outbox:<row id>`, a change
 * card's, a risk notice's), and the message carries that token in its Slack metadata. A marker
 * still there at the next attempt means an earlier one may have reached Slack: the sender looks
 * for the token in the channel (or the thread `thread_ts` names) before it posts again. One
 * table for every poster, so the outbox, change cards and the radar share one path.
 */
export const postAttempts: Migration = {
  id: 110,
  name: "post_attempts",
  up: `
    CREATE TABLE post_attempts (
      key TEXT PRIMARY KEY,
      channel TEXT NOT NULL,
      thread_ts TEXT,
      token TEXT NOT NULL,
      at_ms INTEGER NOT NULL
    );
    CREATE INDEX post_attempts_at ON post_attempts (at_ms);
  `,
};
