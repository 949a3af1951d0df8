import type { Migration } from "./migration.ts";

/**
 * The scheduled channel digest (45–46; 41–44 belong to the card actions, mutes and snoozes).
 * No CHECK lists a kind here: a kind added later needs no table rebuild.
 */
export const digest: Migration[] = [
  {
    id: 45,
    name: "notify_digest_schedules",
    // One schedule per channel. A run row is written in the same transaction as the digest's
    // outbox row, and its key makes that happen at most once per (channel, occurrence): two
    // ticks, a restart or a second replica find it taken.
    up: `
      CREATE TABLE notify_digest_schedules (
        channel TEXT PRIMARY KEY,
        cadence TEXT NOT NULL,
        weekday INTEGER,
        time TEXT NOT NULL,
        time_zone TEXT NOT NULL,
        set_by TEXT NOT NULL,
        set_at TEXT NOT NULL
      );
      CREATE TABLE notify_digest_runs (
        channel TEXT NOT NULL,
        occurrence TEXT NOT NULL,
        built_at TEXT NOT NULL,
        outbox_id INTEGER,
        PRIMARY KEY (channel, occurrence)
      );
    `,
  },
  {
    id: 46,
    name: "notify_events",
    // What the poll saw, kept about 8 days for the digest ("launched since the last digest"),
    // written in the poll's own transaction. notify_unhealthy_since holds since when each
    // cluster has been unhealthy; clusters already unhealthy before this step start now,
    // marked as not exact ("at least since").
    up: `
      CREATE TABLE notify_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        cluster_uid TEXT NOT NULL,
        name TEXT NOT NULL,
        project_uid TEXT NOT NULL,
        tags TEXT NOT NULL,
        kind TEXT NOT NULL,
        detail TEXT
      );
      CREATE INDEX notify_events_at ON notify_events (at);
      CREATE TABLE notify_unhealthy_since (
        cluster_uid TEXT PRIMARY KEY,
        since TEXT NOT NULL,
        exact INTEGER NOT NULL
      );
      INSERT OR IGNORE INTO notify_unhealthy_since (cluster_uid, since, exact)
        SELECT cluster_uid, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 0 FROM notify_snapshots
        WHERE trim(health) <> '' AND lower(health) NOT IN ('healthy', 'unknown');
    `,
  },
];
