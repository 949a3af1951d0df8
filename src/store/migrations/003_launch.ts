import type { Migration } from "./migration.ts";

/**
 * Tables of the launch issue. One row per launch, written BEFORE Palette is called: the unique
 * `submission_key` (Slack view id) makes a retried or double-clicked submit a no-op, and the
 * unique `name_key` (project/name, cleared once the launch is settled) stops two launches of the
 * same name racing each other. The same row then drives the card and the watch.
 */
export const launch: Migration[] = [
  {
    id: 20,
    name: "launches",
    up: `
      CREATE TABLE launches (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        submission_key TEXT NOT NULL UNIQUE,
        name_key TEXT UNIQUE,
        project_uid TEXT NOT NULL DEFAULT '',
        provider TEXT NOT NULL,
        name TEXT NOT NULL,
        requester TEXT NOT NULL,
        channel TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('submitting', 'created')),
        cluster_uid TEXT,
        card_ts TEXT,
        last_state TEXT,
        done INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX launches_open ON launches (done, status);
    `,
  },
];
