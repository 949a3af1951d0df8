import type { Migration } from "./migration.ts";

/**
 * The edge fleet (issue 39): each edge host the poll has read, with what Palette cannot say and
 * the bot measures itself. Palette's spec has no last-seen time for a host, so `unhealthy_since`
 * (when the bot first read it unhealthy) and `last_seen_healthy` (the last read that found it
 * healthy) are the bot's own; `told` is what the channels were last told of it ('' nothing,
 * 'unhealthy', 'unpaired'), so a recovery edits what was told and a host dark for less than the
 * grace is never told at all. `modified_at` is Palette's lastModifiedTimestamp, the incremental
 * read's watermark. The subscriptions' kind gains `edge`: SQLite cannot change a CHECK in place,
 * so that table is rebuilt with its rows and index, as migration 72 did.
 */
export const edgeHosts: Migration = {
  id: 111,
  name: "edge_hosts",
  up: `
    CREATE TABLE notify_subscriptions_next (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      channel TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('clusters', 'alerts', 'all', 'risks', 'edge')),
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

    CREATE TABLE edge_hosts (
      host_uid TEXT PRIMARY KEY,
      scope TEXT NOT NULL,
      project_uid TEXT NOT NULL,
      name TEXT NOT NULL,
      site TEXT,
      tags TEXT NOT NULL,
      cluster_uid TEXT,
      cluster_name TEXT,
      state TEXT NOT NULL,
      health TEXT NOT NULL,
      message TEXT,
      agent_version TEXT,
      modified_at INTEGER,
      first_seen_at INTEGER NOT NULL,
      seen_at INTEGER NOT NULL,
      unhealthy_since INTEGER,
      last_seen_healthy INTEGER,
      told TEXT NOT NULL DEFAULT '' CHECK (told IN ('', 'unhealthy', 'unpaired'))
    );
    CREATE INDEX edge_hosts_scope ON edge_hosts (scope, health);
    CREATE INDEX edge_hosts_site ON edge_hosts (project_uid, site);
  `,
};
