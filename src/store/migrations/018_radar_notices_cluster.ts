import type { Migration } from "./migration.ts";

/**
 * A cluster's radar notices by cluster (issue 31 item 14): every reading syncs its cluster's
 * notices, and the primary key starts with the channel, so without this each sync scanned every
 * notice of the fleet (on SQLite, with the event loop blocked).
 */
export const radarNoticesCluster: Migration = {
  id: 85,
  name: "radar_notices_cluster_uid",
  up: `
    CREATE INDEX radar_notices_cluster_uid ON radar_notices (cluster_uid);
  `,
};
