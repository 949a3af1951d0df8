import type { Migration } from "./migration.ts";

/**
 * The radar's notices of edge risks (issue 39, item 5), keyed by what a risk is about (a
 * registration token, a host, a cluster) rather than by cluster: `radar_notices` stays keyed by
 * cluster and RISK_KINDS, so cluster notices are untouched, and its orphan pruning (clusters the
 * poll no longer lists) never mistakes a token's or a host's notice for a deleted cluster's.
 * Id 114: 113 is left for another change in flight; ids need only increase.
 */
export const edgeRadarNotices: Migration = {
  id: 114,
  name: "edge_radar_notices",
  up: `
    CREATE TABLE edge_radar_notices (
      channel TEXT NOT NULL,
      subject_kind TEXT NOT NULL CHECK (subject_kind IN ('token', 'host', 'cluster')),
      subject_uid TEXT NOT NULL,
      kind TEXT NOT NULL,
      subject_name TEXT NOT NULL,
      ts TEXT,
      shown TEXT NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (channel, subject_kind, subject_uid, kind)
    );
  `,
};
