import type { Migration } from "./migration.ts";

/**
 * The listing order as a column of its own (47). It was SQLite's rowid, which PostgreSQL has not:
 * `seq` is assigned on insert (one more than the table's largest, in listing order) and kept by
 * an update, as the rowid was. Rows already stored keep their rowid as their place.
 */
export const listingOrder: Migration[] = [
  {
    id: 47,
    name: "listing_order",
    up: `
      ALTER TABLE notify_snapshots ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
      UPDATE notify_snapshots SET seq = rowid;
      CREATE INDEX notify_snapshots_seq ON notify_snapshots (seq);
      ALTER TABLE notify_reconcile_staging ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
      UPDATE notify_reconcile_staging SET seq = rowid;
      CREATE INDEX notify_reconcile_staging_seq ON notify_reconcile_staging (scope, seq);
    `,
  },
];
