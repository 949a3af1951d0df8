import { type ClusterSnap, isKnownUnhealthy } from "../model/cluster.ts";
import { chunks, MAYBE_UNHEALTHY_SQL, type SnapRow, toSnap } from "./snapshots.ts";
import type { SqlExecutor } from "./sql.ts";

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
/** Staged rows per INSERT: 8 parameters each, far below either backend's bound. */
const INSERT_ROWS = 100;

export class ReconcileStaging {
  constructor(private readonly db: SqlExecutor) {}

  async clear(scope: string): Promise<void> {
    await this.db.run("DELETE FROM notify_reconcile_staging WHERE scope = ?", [scope]);
  }

  /**
   * Adds one batch of listed clusters; meant for one small transaction per batch (staging is not
   * the snapshot). Rows go in `INSERT_ROWS` to a statement, in listing order. A cluster listed
   * twice keeps its first place and its latest columns (within one statement: its last listing).
   */
  async add(
    scope: string,
    rows: ReadonlyArray<{ cluster: ClusterSnap; changed: boolean }>,
  ): Promise<void> {
    for (const part of chunks(rows, INSERT_ROWS)) {
      // a cluster twice in one statement would be a conflict with itself: its last listing counts
      const unique = [...new Map(part.map((row) => [row.cluster.uid, row])).values()];
      await this.db.run(
        // places in listing order after the scope's last (`seq`); a repeat keeps its first place
        `INSERT INTO notify_reconcile_staging
           (scope, cluster_uid, project_uid, name, state, health, tags, changed, seq)
         VALUES ${unique
           .map(
             () =>
               "(?, ?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) FROM notify_reconcile_staging WHERE scope = ?) + ?)",
           )
           .join(", ")}
         ON CONFLICT (scope, cluster_uid) DO UPDATE SET project_uid = excluded.project_uid,
           name = excluded.name, state = excluded.state, health = excluded.health,
           tags = excluded.tags, changed = excluded.changed`,
        unique.flatMap(({ cluster: c, changed }, index) => [
          scope,
          c.uid,
          c.project,
          c.name,
          c.state,
          c.health,
          JSON.stringify(c.tags),
          changed ? 1 : 0,
          scope,
          index + 1,
        ]),
      );
    }
  }

  /** Which of these UIDs this reconciliation already listed (a page boundary can repeat one). */
  async listed(scope: string, uids: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (const part of chunks(uids)) {
      const rows = await this.db.all<{ cluster_uid: string }>(
        `SELECT cluster_uid FROM notify_reconcile_staging
         WHERE scope = ? AND cluster_uid IN (${part.map(() => "?").join(",")})`,
        [scope, ...part],
      );
      for (const row of rows) found.add(row.cluster_uid);
    }
    return found;
  }

  /** Listed clusters by UID; UIDs not listed are left out. */
  async byUids(scope: string, uids: readonly string[]): Promise<Map<string, ClusterSnap>> {
    const found = new Map<string, ClusterSnap>();
    for (const part of chunks(uids)) {
      const rows = await this.db.all<StagedRow>(
        `SELECT * FROM notify_reconcile_staging
         WHERE scope = ? AND cluster_uid IN (${part.map(() => "?").join(",")})`,
        [scope, ...part],
      );
      for (const row of rows) found.set(row.cluster_uid, fromStaged(row));
    }
    return found;
  }

  /** Clusters the poller remembers in the scope that this reconciliation did not list. */
  async unlisted(scope: string): Promise<ClusterSnap[]> {
    const rows = await this.db.all<SnapRow>(
      `SELECT s.* FROM notify_snapshots s
       WHERE s.project = ? AND NOT EXISTS (
         SELECT 1 FROM notify_reconcile_staging t
         WHERE t.scope = s.project AND t.cluster_uid = s.cluster_uid)
       ORDER BY s.seq`,
      [scope],
    );
    return rows.map(toSnap);
  }

  /** Listed clusters whose health is known and not Healthy, in listing order. */
  async unhealthy(scope: string): Promise<ClusterSnap[]> {
    const rows = await this.db.all<StagedRow>(
      `SELECT * FROM notify_reconcile_staging
       WHERE scope = ? AND ${MAYBE_UNHEALTHY_SQL} ORDER BY seq`,
      [scope],
    );
    return rows.map(fromStaged).filter((c) => isKnownUnhealthy(c.health));
  }

  /** Every listed cluster, `batch` rows at a time, in listing order. */
  async forEach(scope: string, visit: (cluster: ClusterSnap) => void, batch = 500): Promise<void> {
    let after = 0;
    for (;;) {
      const rows = await this.db.all<StagedRow & { seq: number }>(
        `SELECT * FROM notify_reconcile_staging
         WHERE scope = ? AND seq > ? ORDER BY seq LIMIT ?`,
        [scope, after, batch],
      );
      for (const row of rows) visit(fromStaged(row));
      if (rows.length < batch) return;
      after = rows.at(-1)!.seq;
    }
  }

  /**
   * The reconciliation's outcome becomes the snapshot: changed rows written (in listing order,
   * which new rows keep), `deleted` ones removed, staging cleared. Clusters in `keep` are left
   * as the snapshot has them: a newer cycle wrote them after this listing read them. Call inside
   * the cycle's transaction.
   */
  async apply(
    scope: string,
    deleted: readonly string[],
    at: string,
    keep: ReadonlySet<string> = new Set(),
  ): Promise<void> {
    for (const uid of keep) {
      await this.db.run(
        "UPDATE notify_reconcile_staging SET changed = 0 WHERE scope = ? AND cluster_uid = ?",
        [scope, uid],
      );
    }
    await this.db.run(
      `INSERT INTO notify_snapshots
         (project, cluster_uid, project_uid, name, state, health, tags, updated_at, seq)
       SELECT scope, cluster_uid, project_uid, name, state, health, tags, ?,
         (SELECT COALESCE(MAX(seq), 0) FROM notify_snapshots) + ROW_NUMBER() OVER (ORDER BY seq)
       FROM notify_reconcile_staging WHERE scope = ? AND changed = 1 ORDER BY seq
       ON CONFLICT (project, cluster_uid) DO UPDATE SET project_uid = excluded.project_uid,
         name = excluded.name, state = excluded.state, health = excluded.health,
         tags = excluded.tags, updated_at = excluded.updated_at`,
      [at, scope],
    );
    const remove = "DELETE FROM notify_snapshots WHERE project = ? AND cluster_uid = ?";
    // one at a time: PostgreSQL's transaction is one client, which pg 9 lets run one query only
    for (const uid of deleted) {
      if (!keep.has(uid)) await this.db.run(remove, [scope, uid]);
    }
    await this.clear(scope);
  }
}
