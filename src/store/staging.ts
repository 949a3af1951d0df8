import { type ClusterSnap, isKnownUnhealthy } from "../model/cluster.ts";
import type { Db } from "./db.ts";
import { chunks, MAYBE_UNHEALTHY_SQL, type SnapRow, toSnap } from "./snapshots.ts";

interface StagedRow extends Omit<SnapRow, "project"> {
  scope: string;
  changed: number;
}

const fromStaged = (row: StagedRow): ClusterSnap =>
  toSnap({ ...row, project: row.scope } as SnapRow);

/**
 * Where a reconciliation puts the full listing of one poll scope while it reads it, page by page:
 * every cluster listed, marked `changed` when it differs from notify_snapshots. Nothing here is
 * what the poller remembers until `apply` moves it, inside the cycle's one transaction with its
 * outbox rows. A scope's rows are cleared when its reconciliation starts and when it is applied,
 * so rows a crash left behind never count.
 */
export class ReconcileStaging {
  constructor(private readonly db: Db) {}

  clear(scope: string): void {
    this.db.prepare("DELETE FROM notify_reconcile_staging WHERE scope = ?").run(scope);
  }

  /** Adds one batch of listed clusters (one small transaction: staging is not the snapshot). */
  add(scope: string, rows: ReadonlyArray<{ cluster: ClusterSnap; changed: boolean }>): void {
    const insert = this.db.prepare(
      `INSERT OR REPLACE INTO notify_reconcile_staging
         (scope, cluster_uid, project_uid, name, state, health, tags, changed)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.db.transaction(() => {
      for (const { cluster: c, changed } of rows) {
        insert.run(
          scope,
          c.uid,
          c.project,
          c.name,
          c.state,
          c.health,
          JSON.stringify(c.tags),
          changed ? 1 : 0,
        );
      }
    })();
  }

  /** Which of these UIDs this reconciliation already listed (a page boundary can repeat one). */
  listed(scope: string, uids: readonly string[]): Set<string> {
    const found = new Set<string>();
    for (const part of chunks(uids)) {
      const rows = this.db
        .prepare(
          `SELECT cluster_uid FROM notify_reconcile_staging
           WHERE scope = ? AND cluster_uid IN (${part.map(() => "?").join(",")})`,
        )
        .all(scope, ...part) as Array<{ cluster_uid: string }>;
      for (const row of rows) found.add(row.cluster_uid);
    }
    return found;
  }

  /** Listed clusters by UID; UIDs not listed are left out. */
  byUids(scope: string, uids: readonly string[]): Map<string, ClusterSnap> {
    const found = new Map<string, ClusterSnap>();
    for (const part of chunks(uids)) {
      const rows = this.db
        .prepare(
          `SELECT * FROM notify_reconcile_staging
           WHERE scope = ? AND cluster_uid IN (${part.map(() => "?").join(",")})`,
        )
        .all(scope, ...part) as StagedRow[];
      for (const row of rows) found.set(row.cluster_uid, fromStaged(row));
    }
    return found;
  }

  /** Clusters the poller remembers in the scope that this reconciliation did not list. */
  unlisted(scope: string): ClusterSnap[] {
    const rows = this.db
      .prepare(
        `SELECT s.* FROM notify_snapshots s
         WHERE s.project = ? AND NOT EXISTS (
           SELECT 1 FROM notify_reconcile_staging t
           WHERE t.scope = s.project AND t.cluster_uid = s.cluster_uid)
         ORDER BY s.rowid`,
      )
      .all(scope) as SnapRow[];
    return rows.map(toSnap);
  }

  /** Listed clusters whose health is known and not Healthy, in listing order. */
  unhealthy(scope: string): ClusterSnap[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM notify_reconcile_staging
         WHERE scope = ? AND ${MAYBE_UNHEALTHY_SQL} ORDER BY rowid`,
      )
      .all(scope) as StagedRow[];
    return rows.map(fromStaged).filter((c) => isKnownUnhealthy(c.health));
  }

  /** Every listed cluster, `batch` rows at a time, in listing order. */
  forEach(scope: string, visit: (cluster: ClusterSnap) => void, batch = 500): void {
    const select = this.db.prepare(
      `SELECT rowid AS rid, * FROM notify_reconcile_staging
       WHERE scope = ? AND rowid > ? ORDER BY rowid LIMIT ?`,
    );
    let after = 0;
    for (;;) {
      const rows = select.all(scope, after, batch) as Array<StagedRow & { rid: number }>;
      for (const row of rows) visit(fromStaged(row));
      if (rows.length < batch) return;
      after = rows.at(-1)!.rid;
    }
  }

  /**
   * The reconciliation's outcome becomes the snapshot: changed rows written (in listing order,
   * which new rows keep), `deleted` ones removed, staging cleared. Call inside the cycle's
   * transaction.
   */
  apply(scope: string, deleted: readonly string[], at: string): void {
    this.db
      .prepare(
        `INSERT INTO notify_snapshots
           (project, cluster_uid, project_uid, name, state, health, tags, updated_at)
         SELECT scope, cluster_uid, project_uid, name, state, health, tags, ?
         FROM notify_reconcile_staging WHERE scope = ? AND changed = 1 ORDER BY rowid
         ON CONFLICT (project, cluster_uid) DO UPDATE SET project_uid = excluded.project_uid,
           name = excluded.name, state = excluded.state, health = excluded.health,
           tags = excluded.tags, updated_at = excluded.updated_at`,
      )
      .run(at, scope);
    const remove = this.db.prepare(
      "DELETE FROM notify_snapshots WHERE project = ? AND cluster_uid = ?",
    );
    for (const uid of deleted) remove.run(scope, uid);
    this.clear(scope);
  }
}
