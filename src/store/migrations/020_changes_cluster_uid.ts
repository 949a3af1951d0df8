import type { Migration } from "./migration.ts";

/**
 * `why` reads a cluster's changes by its UID (src/store/cluster-record.ts) and the radar joins
 * them by cluster: without an index each read scans every change ever kept (issue 31, item 14).
 */
export const changesClusterUid: Migration = {
  id: 91,
  name: "changes_cluster_uid",
  up: `
    CREATE INDEX changes_cluster_uid ON changes (cluster_uid);
  `,
};
