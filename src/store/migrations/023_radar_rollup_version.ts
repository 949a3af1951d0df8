import type { Migration } from "./migration.ts";

/**
 * A version on each roll-up (issue 37 item 3): every change of its members (one joins, changes or
 * ends) raises it, and the notifier records "shown" or drops the roll-up only at the version it
 * read before its edit, so a member's change or end made while the edit was in flight is not
 * lost (the roll-up stays stale and is edited again).
 */
export const radarRollupVersion: Migration = {
  id: 88,
  name: "radar_rollups_version",
  up: `
    ALTER TABLE radar_rollups ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
  `,
};
