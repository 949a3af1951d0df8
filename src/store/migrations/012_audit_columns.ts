import type { Migration } from "./migration.ts";

/**
 * The audit of a day-2 change in columns (issue 25): which change, which cluster and project,
 * who asked, who approved, which Palette user acted, and the step (request, refused, approved,
 * rejected, expired, answer, end), so `/palette audit` filters and exports without parsing JSON.
 * Older rows keep NULLs here and their `detail` as written. `audit_at` (by time) already serves
 * the retention's prune; the cluster index serves `/palette audit <cluster>`.
 */
export const auditColumns: Migration = {
  id: 60,
  name: "audit_change_columns",
  up: `
    ALTER TABLE audit ADD COLUMN step TEXT;
    ALTER TABLE audit ADD COLUMN change_id INTEGER;
    ALTER TABLE audit ADD COLUMN cluster_uid TEXT;
    ALTER TABLE audit ADD COLUMN project_uid TEXT;
    ALTER TABLE audit ADD COLUMN requester TEXT;
    ALTER TABLE audit ADD COLUMN approver TEXT;
    ALTER TABLE audit ADD COLUMN palette_user TEXT;
    CREATE INDEX audit_cluster_uid ON audit (cluster_uid);
  `,
};
