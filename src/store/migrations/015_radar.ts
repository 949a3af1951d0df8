import type { Migration } from "./migration.ts";

/**
 * The radar (issue 28): each cluster's last reading, the fleet's pending repaves (with when the
 * radar first saw each, since Palette's list does not say), the risks that hold now, and the
 * notice each `risks` channel got of each risk (edited in place, told when it is gone). The
 * subscriptions' kind gains `risks`: SQLite cannot change a CHECK in place, so the table is
 * rebuilt with its rows and index.
 */
export const radar: Migration = {
  id: 72,
  name: "radar",
  up: `
    CREATE TABLE notify_subscriptions_next (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      channel TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('clusters', 'alerts', 'all', 'risks')),
      project TEXT,
      tag TEXT,
      paused_reason TEXT,
      created_by TEXT NOT NULL,
      created_at TEXT NOT NULL
    );
    INSERT INTO notify_subscriptions_next
      (id, channel, kind, project, tag, paused_reason, created_by, created_at)
      SELECT id, channel, kind, project, tag, paused_reason, created_by, created_at
      FROM notify_subscriptions;
    DROP TABLE notify_subscriptions;
    ALTER TABLE notify_subscriptions_next RENAME TO notify_subscriptions;
    CREATE INDEX notify_subscriptions_channel ON notify_subscriptions (channel);

    CREATE TABLE radar_readings (
      cluster_uid TEXT PRIMARY KEY,
      project TEXT NOT NULL,
      name TEXT NOT NULL,
      read_at INTEGER NOT NULL,
      reading TEXT NOT NULL
    );
    CREATE INDEX radar_readings_read_at ON radar_readings (read_at);
    CREATE TABLE radar_repaves (
      cluster_uid TEXT PRIMARY KEY,
      project TEXT NOT NULL,
      name TEXT NOT NULL,
      since INTEGER NOT NULL,
      seen_at INTEGER NOT NULL
    );
    CREATE TABLE radar_risks (
      cluster_uid TEXT NOT NULL,
      kind TEXT NOT NULL,
      project TEXT NOT NULL,
      name TEXT NOT NULL,
      severity TEXT NOT NULL,
      risk TEXT NOT NULL,
      since INTEGER NOT NULL,
      PRIMARY KEY (cluster_uid, kind)
    );
    CREATE TABLE radar_notices (
      channel TEXT NOT NULL,
      cluster_uid TEXT NOT NULL,
      kind TEXT NOT NULL,
      ts TEXT,
      shown TEXT NOT NULL,
      gone INTEGER NOT NULL DEFAULT 0,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (channel, cluster_uid, kind)
    );
  `,
};
