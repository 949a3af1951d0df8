import type { Migration } from "./migration.ts";

/**
 * The sender's heartbeat on a claimed change (issue 31, item 4): while a replica sends a change
 * to Palette it refreshes `heartbeat_at`, and checks the row is still its own just before the
 * write; the lease holder reconciles only an `executing` row whose heartbeat stopped. Older rows
 * keep NULL and are judged by `updated_at`, as before.
 */
export const changeHeartbeat: Migration = {
  id: 80,
  name: "change_heartbeat",
  up: `
    ALTER TABLE changes ADD COLUMN heartbeat_at INTEGER;
  `,
};
