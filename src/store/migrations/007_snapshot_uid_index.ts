import type { Migration } from "./migration.ts";

/**
 * `SnapshotStore.byUid` (a card's cluster, a command's look-up by UID) searched every snapshot:
 * the primary key leads with the project, so a UID alone could not use it (48).
 */
export const snapshotUidIndex: Migration[] = [
  {
    id: 48,
    name: "snapshot_uid_index",
    up: `
      CREATE INDEX notify_snapshots_uid ON notify_snapshots (cluster_uid, updated_at);
    `,
  },
];
