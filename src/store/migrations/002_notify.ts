import type { Migration } from "./migration.ts";

/**
 * Tables of the notification pipeline. Everything the poll and the sender need to report a change
 * exactly once lives here, so one SQLite transaction can move snapshot, alerts, flaps and outbox
 * together: after a crash, either the whole poll happened or none of it did.
 */
export const notify: Migration[] = [
  {
    id: 10,
    name: "notify_subscriptions",
    up: `
      CREATE TABLE notify_subscriptions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        channel TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('clusters', 'alerts', 'all')),
        project TEXT,
        tag TEXT,
        paused_reason TEXT,
        created_by TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX notify_subscriptions_channel ON notify_subscriptions (channel);
    `,
  },
  {
    id: 11,
    name: "notify_snapshots",
    up: `
      CREATE TABLE notify_snapshots (
        project TEXT NOT NULL,
        cluster_uid TEXT NOT NULL,
        name TEXT NOT NULL,
        state TEXT NOT NULL,
        health TEXT NOT NULL,
        tags TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (project, cluster_uid)
      );
      CREATE TABLE notify_baselines (
        project TEXT PRIMARY KEY,
        at TEXT NOT NULL
      );
    `,
  },
  {
    id: 12,
    name: "notify_alerts",
    up: `
      CREATE TABLE notify_alerts (
        cluster_uid TEXT NOT NULL,
        kind TEXT NOT NULL,
        reason TEXT NOT NULL,
        raised_at TEXT NOT NULL,
        PRIMARY KEY (cluster_uid, kind)
      );
    `,
  },
  {
    id: 13,
    name: "notify_cards",
    up: `
      CREATE TABLE notify_cards (
        channel TEXT NOT NULL,
        cluster_uid TEXT NOT NULL,
        ts TEXT NOT NULL,
        thread_ts TEXT,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (channel, cluster_uid)
      );
    `,
  },
  {
    id: 14,
    name: "notify_outbox",
    up: `
      CREATE TABLE notify_outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        channel TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('post', 'card', 'thread', 'digest', 'summary')),
        payload TEXT NOT NULL,
        cluster_uid TEXT,
        created_at TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL DEFAULT 0,
        step INTEGER NOT NULL DEFAULT 0,
        sent_at TEXT,
        parked_reason TEXT
      );
      CREATE INDEX notify_outbox_pending ON notify_outbox (channel, id) WHERE sent_at IS NULL AND parked_reason IS NULL;
    `,
  },
  {
    id: 15,
    name: "notify_flaps",
    up: `
      CREATE TABLE notify_flaps (
        cluster_uid TEXT PRIMARY KEY,
        transitions TEXT NOT NULL,
        reported INTEGER NOT NULL DEFAULT 0
      );
    `,
  },
  // No code reads or writes notify_launch_watches any more (the launch flow follows its own
  // clusters, src/launch/watch.ts). The table stays: it was only ever empty, and dropping it
  // would make an older build, rolled back onto the same database, fail every poll cycle.
  {
    id: 16,
    name: "notify_launch_watches",
    up: `
      CREATE TABLE notify_launch_watches (
        cluster_uid TEXT PRIMARY KEY,
        channel TEXT NOT NULL,
        requester TEXT NOT NULL,
        ts TEXT,
        created_at TEXT NOT NULL,
        done INTEGER NOT NULL DEFAULT 0
      );
    `,
  },
  {
    id: 17,
    name: "notify_cards_owner",
    // a card another part of the bot owns (the launch card): notifications only add thread lines
    up: "ALTER TABLE notify_cards ADD COLUMN owner TEXT;",
  },
  {
    id: 18,
    name: "notify_snapshots_project_uid",
    // `project` is the poll scope a row belongs to ('' when the tenant is polled); a deletion is
    // routed by the cluster's own project, which a tenant-scope row could not hold. Rows written
    // before this step get it from the next listing that names them.
    up: "ALTER TABLE notify_snapshots ADD COLUMN project_uid TEXT NOT NULL DEFAULT '';",
  },
  {
    id: 19,
    name: "notify_outbox_dead_letters",
    // A row's fate stays readable from its columns, by this build and by an older one rolled back
    // onto the same file: pending (sent_at and parked_reason NULL), sent (sent_at), held while its
    // channel is paused (parked_reason), dead letter (parked_reason says why, dead_at since when:
    // an older build just sees it parked). `plain_text`: Slack refused the blocks once, so the
    // row goes out as text only.
    up: `
      ALTER TABLE notify_outbox ADD COLUMN dead_at TEXT;
      ALTER TABLE notify_outbox ADD COLUMN plain_text INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    // 20–39 belong to the launch tables (003_launch.ts); the notify tables go on from 40
    id: 40,
    name: "notify_reconcile_staging",
    // A reconciliation streams the full listing here page by page (memory stays flat however
    // large the fleet), then moves what changed into notify_snapshots in the same transaction as
    // its outbox rows. Rows left by a crash are cleared by the next reconciliation. The partial
    // index finds the clusters an incremental poll expects to see: those not Running and Healthy.
    up: `
      CREATE TABLE notify_reconcile_staging (
        scope TEXT NOT NULL,
        cluster_uid TEXT NOT NULL,
        project_uid TEXT NOT NULL,
        name TEXT NOT NULL,
        state TEXT NOT NULL,
        health TEXT NOT NULL,
        tags TEXT NOT NULL,
        changed INTEGER NOT NULL,
        PRIMARY KEY (scope, cluster_uid)
      );
      CREATE INDEX notify_snapshots_unsteady ON notify_snapshots (project)
        WHERE NOT (state = 'Running' AND health = 'Healthy');
    `,
  },
];
