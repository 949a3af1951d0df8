import type { Migration } from "./migration.ts";

/**
 * Risk notices rolled up (issue 31 item 3): when many notices alike are due for one channel
 * together (a new version of a profile 5,000 clusters use), one message says them all. A roll-up
 * is keyed by its channel and group (the kind, and for profile updates the profile versions);
 * `ended` counts the members that no longer hold, `stale` says its message is behind its members
 * (edited at the next look, after `retry_at` when Slack said "not now"). A notice in a roll-up
 * names its group in `rollup` and shares the roll-up's ts.
 */
export const radarRollups: Migration = {
  id: 87,
  name: "radar_rollups",
  up: `
    CREATE TABLE radar_rollups (
      channel TEXT NOT NULL,
      group_key TEXT NOT NULL,
      kind TEXT NOT NULL,
      ts TEXT NOT NULL,
      ended INTEGER NOT NULL DEFAULT 0,
      stale INTEGER NOT NULL DEFAULT 0,
      retry_at INTEGER,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (channel, group_key)
    );
    ALTER TABLE radar_notices ADD COLUMN rollup TEXT;
    CREATE INDEX radar_notices_rollup ON radar_notices (channel, rollup);
  `,
};
