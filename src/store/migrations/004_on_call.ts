import type { Migration } from "./migration.ts";

/**
 * On-call state of a channel's card: the acknowledgement, snoozes and mutes, and the news kept
 * back while a cluster is snoozed or muted (summarised in one line when the hold ends). Ids
 * 41–49 belong to this feature.
 */
export const onCall: Migration[] = [
  {
    id: 41,
    name: "notify_on_call",
    up: `
      ALTER TABLE notify_cards ADD COLUMN payload TEXT;
      CREATE TABLE notify_acks (
        channel TEXT NOT NULL,
        cluster_uid TEXT NOT NULL,
        user_id TEXT NOT NULL,
        acked_at INTEGER NOT NULL,
        PRIMARY KEY (channel, cluster_uid)
      );
      CREATE TABLE notify_holds (
        channel TEXT NOT NULL,
        cluster_uid TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('snooze', 'mute')),
        cluster_name TEXT NOT NULL,
        project_uid TEXT NOT NULL DEFAULT '',
        user_id TEXT NOT NULL,
        reason TEXT,
        started_at INTEGER NOT NULL,
        until_ms INTEGER NOT NULL,
        PRIMARY KEY (channel, cluster_uid, kind)
      );
      CREATE TABLE notify_held_news (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        channel TEXT NOT NULL,
        cluster_uid TEXT NOT NULL,
        payload TEXT NOT NULL,
        at TEXT NOT NULL
      );
      CREATE INDEX notify_held_news_by_card ON notify_held_news (channel, cluster_uid, id);
    `,
  },
];
