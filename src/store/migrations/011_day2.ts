import type { Migration } from "./migration.ts";

/**
 * Day-2 changes (52): each confirmed change to a cluster, from confirmation through approval to
 * Palette's answer and the end it was followed to; `request_key` (the confirmation's Slack view)
 * is unique, so a double submit or a Slack retry records one change. Freezes (53): a cluster, a
 * project or everything, until a time; change verbs and launches are refused while one covers them.
 */
export const day2: Migration[] = [
  {
    id: 52,
    name: "changes",
    up: `
      CREATE TABLE changes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        request_key TEXT NOT NULL UNIQUE,
        verb TEXT NOT NULL,
        cluster_uid TEXT NOT NULL,
        cluster_name TEXT NOT NULL,
        project_uid TEXT NOT NULL,
        plan TEXT NOT NULL,
        requester TEXT NOT NULL,
        channel TEXT NOT NULL,
        status TEXT NOT NULL,
        approver TEXT,
        reason TEXT,
        card_channel TEXT,
        card_ts TEXT,
        request_channel TEXT,
        request_ts TEXT,
        expires_at INTEGER,
        created_at INTEGER NOT NULL,
        accepted_at INTEGER,
        ended_at INTEGER,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX changes_status ON changes (status);
    `,
  },
  {
    id: 53,
    name: "freezes",
    up: `
      CREATE TABLE freezes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        scope_kind TEXT NOT NULL,
        scope_uid TEXT NOT NULL,
        scope_name TEXT NOT NULL,
        until_ms INTEGER NOT NULL,
        reason TEXT NOT NULL,
        frozen_by TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        lifted_at INTEGER,
        lifted_by TEXT
      );
      CREATE INDEX freezes_until ON freezes (until_ms);
    `,
  },
  {
    id: 54,
    name: "change_palette_ref",
    // what Palette named the change when it accepted it (an on-demand backup's request uid),
    // for the follower to ask about
    up: `
      ALTER TABLE changes ADD COLUMN palette_ref TEXT;
    `,
  },
];
