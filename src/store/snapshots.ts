import { alertKey, type RaisedAlert } from "../model/alert.ts";
import { type ClusterSnap, isKnownUnhealthy } from "../model/cluster.ts";
import type { FlapHistory } from "../model/flap-history.ts";
import type { SqlExecutor } from "./sql.ts";

export interface SnapRow {
  /** the poll scope: a project UID, or "" when the tenant is polled */
  project: string;
  /** the cluster's own project; "" in rows written before it was stored */
  project_uid: string;
  cluster_uid: string;
  name: string;
  state: string;
  health: string;
  tags: string;
}

/** Uids per `IN (…)` list: well under SQLite's bound on parameters. */
const IN_CHUNK = 500;

/** SQL pre-filter of a known bad health (isKnownUnhealthy decides; this only narrows the rows). */
export const MAYBE_UNHEALTHY_SQL =
  "trim(health) <> '' AND lower(health) NOT IN ('healthy', 'unknown')";

/** Rows per multi-row INSERT: at 7 columns 1,400 parameters, far below either backend's bound. */
export const ROWS_PER_INSERT = 200;

export function chunks<T>(items: readonly T[], size = IN_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export function toSnap(row: SnapRow): ClusterSnap {
  return {
    uid: row.cluster_uid,
    name: row.name,
    project: row.project_uid || row.project,
    state: row.state,
    health: row.health,
    tags: parseTags(row.tags),
  };
}

/** The columns a snapshot is read from (not `updated_at`: nobody reads it back). */
const SNAP_COLUMNS = "project, project_uid, cluster_uid, name, state, health, tags";

/**
 * Rows → snapshots, sharing what repeats across a fleet: each distinct tags text is parsed once
 * into one frozen array, and project, state and health strings are shared. A whole-fleet read
 * (the subscribe answer, the App Home) then keeps about the fleet's UIDs and names, not every
 * column of every row.
 */
function toSharedSnaps(rows: readonly SnapRow[]): ClusterSnap[] {
  const tagLists = new Map<string, string[]>();
  const shared = new Map<string, string>();
  const share = (value: string): string => {
    const known = shared.get(value);
    if (known !== undefined) return known;
    shared.set(value, value);
    return value;
  };
  return rows.map((row) => {
    let tags = tagLists.get(row.tags);
    if (!tags) {
      tags = Object.freeze(parseTags(row.tags)) as string[];
      tagLists.set(row.tags, tags);
    }
    return {
      uid: row.cluster_uid,
      name: row.name,
      project: share(row.project_uid || row.project),
      state: share(row.state),
      health: share(row.health),
      tags,
    };
  });
}

function parseTags(raw: string): string[] {
  try {
    const value: unknown = JSON.parse(raw);
    return Array.isArray(value) ? value.filter((t): t is string => typeof t === "string") : [];
  } catch {
    return [];
  }
}

function parseTransitions(raw: string): number[] {
  try {
    const value: unknown = JSON.parse(raw);
    return Array.isArray(value) ? value.filter((t): t is number => typeof t === "number") : [];
  } catch {
    return [];
  }
}

/**
 * What the poller remembers between polls: last seen clusters per project, whether a project has
 * its baseline, raised alerts and flap histories. Writes are meant to run inside the poller's one
 * transaction per cycle.
 */
export class SnapshotStore {
  constructor(private readonly db: SqlExecutor) {}

  /** Every cluster the poller last saw, at once (tests; the bot streams them with `forEach`). */
  async all(): Promise<ClusterSnap[]> {
    return toSharedSnaps(
      await this.db.all<SnapRow>(`SELECT ${SNAP_COLUMNS} FROM notify_snapshots ORDER BY seq`),
    );
  }

  /**
   * Every cluster the poller last saw, `batch` rows at a time in listing order: memory holds a
   * batch, not the fleet (50,000 snapshots read at once cost about 20 MB).
   */
  async forEach(visit: (cluster: ClusterSnap) => void, batch = 1000): Promise<void> {
    const order = "ORDER BY seq, project, cluster_uid LIMIT ?";
    let after: [number, string, string] | undefined;
    for (;;) {
      const rows = await this.db.all<SnapRow & { seq: number }>(
        after
          ? `SELECT ${SNAP_COLUMNS}, seq FROM notify_snapshots
             WHERE (seq, project, cluster_uid) > (?, ?, ?) ${order}`
          : `SELECT ${SNAP_COLUMNS}, seq FROM notify_snapshots ${order}`,
        after ? [...after, batch] : [batch],
      );
      for (const cluster of toSharedSnaps(rows)) visit(cluster);
      if (rows.length < batch) return;
      const last = rows.at(-1)!;
      after = [last.seq, last.project, last.cluster_uid];
    }
  }

  /** The clusters last seen in one poll scope (a project UID, or "" for the tenant). */
  async load(scope: string): Promise<Map<string, ClusterSnap>> {
    const rows = await this.db.all<SnapRow>(
      "SELECT * FROM notify_snapshots WHERE project = ? ORDER BY seq",
      [scope],
    );
    return new Map(rows.map((row) => [row.cluster_uid, toSnap(row)]));
  }

  /** The clusters of these poll scopes (the App Home reads them when it opens, not kept). */
  async inScopes(scopes: readonly string[]): Promise<ClusterSnap[]> {
    const out: ClusterSnap[] = [];
    for (const scope of scopes) {
      const rows = await this.db.all<SnapRow>(
        `SELECT ${SNAP_COLUMNS} FROM notify_snapshots WHERE project = ? ORDER BY seq`,
        [scope],
      );
      for (const snap of toSharedSnaps(rows)) out.push(snap);
    }
    return out;
  }

  /** How many clusters the poller remembers in these poll scopes. */
  async count(scopes: readonly string[]): Promise<number> {
    let sum = 0;
    for (const scope of scopes) {
      const row = await this.db.get<{ n: number }>(
        "SELECT COUNT(*) AS n FROM notify_snapshots WHERE project = ?",
        [scope],
      );
      sum += Number(row!.n);
    }
    return sum;
  }

  /** One cluster by UID, whatever scope saw it last (the end of a snooze says where it stands). */
  async byUid(uid: string): Promise<ClusterSnap | undefined> {
    const row = await this.db.get<SnapRow>(
      "SELECT * FROM notify_snapshots WHERE cluster_uid = ? ORDER BY updated_at DESC LIMIT 1",
      [uid],
    );
    return row ? toSnap(row) : undefined;
  }

  /** Some clusters of one scope by UID; UIDs it does not hold are left out. */
  async byUids(scope: string, uids: readonly string[]): Promise<Map<string, ClusterSnap>> {
    const found = new Map<string, ClusterSnap>();
    for (const part of chunks(uids)) {
      const rows = await this.db.all<SnapRow>(
        `SELECT * FROM notify_snapshots WHERE project = ? AND cluster_uid IN (${part.map(() => "?").join(",")})`,
        [scope, ...part],
      );
      for (const row of rows) found.set(row.cluster_uid, toSnap(row));
    }
    return found;
  }

  /**
   * Where these clusters stand in the order the poller first stored them (which is the order
   * Palette listed them): a position per UID it holds.
   */
  async positions(scope: string, uids: readonly string[]): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    for (const part of chunks(uids)) {
      const rows = await this.db.all<{ cluster_uid: string; position: number }>(
        `SELECT cluster_uid, seq AS position FROM notify_snapshots
         WHERE project = ? AND cluster_uid IN (${part.map(() => "?").join(",")})`,
        [scope, ...part],
      );
      for (const row of rows) found.set(row.cluster_uid, row.position);
    }
    return found;
  }

  /**
   * The clusters of one scope last seen not Running and Healthy (`isSteady`): the ones an
   * incremental poll expects Palette to list, in the order they were first stored.
   */
  async unsteady(scope: string): Promise<Map<string, ClusterSnap>> {
    const rows = await this.db.all<SnapRow>(
      `SELECT * FROM notify_snapshots
       WHERE project = ? AND NOT (state = 'Running' AND health = 'Healthy') ORDER BY seq`,
      [scope],
    );
    return new Map(rows.map((row) => [row.cluster_uid, toSnap(row)]));
  }

  /** The clusters of one scope whose health is known and not Healthy. */
  async unhealthy(scope: string): Promise<ClusterSnap[]> {
    const rows = await this.db.all<SnapRow>(
      `SELECT * FROM notify_snapshots WHERE project = ? AND ${MAYBE_UNHEALTHY_SQL} ORDER BY seq`,
      [scope],
    );
    return rows.map(toSnap).filter((c) => isKnownUnhealthy(c.health));
  }

  /**
   * Replace a scope's snapshot with `clusters`, touching only rows that changed. Each cluster keeps
   * its own project, so a tenant-scope row still routes to the project's channels. `previous` may
   * be part of the scope (an incremental poll's): only its clusters missing from `clusters` are
   * removed, rows outside it stay as they are. Meant for the poll's transaction. The statements
   * run one after another: a new row's place is one more than the row written before it, which
   * on a pool of connections only holds when that one has finished.
   */
  async replace(
    scope: string,
    previous: ReadonlyMap<string, ClusterSnap>,
    clusters: ClusterSnap[],
    at: string,
  ): Promise<string[]> {
    // a new row takes the next place in the listing order (`seq`); an update keeps its place
    const upsert = `INSERT INTO notify_snapshots
         (project, cluster_uid, project_uid, name, state, health, tags, updated_at, seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?,
         (SELECT COALESCE(MAX(seq), 0) + 1 FROM notify_snapshots))
       ON CONFLICT (project, cluster_uid) DO UPDATE SET project_uid = excluded.project_uid,
         name = excluded.name, state = excluded.state, health = excluded.health,
         tags = excluded.tags, updated_at = excluded.updated_at`;
    const remove = "DELETE FROM notify_snapshots WHERE project = ? AND cluster_uid = ?";
    const seen = new Set<string>();
    const written: string[] = [];
    for (const c of clusters) {
      seen.add(c.uid);
      const before = previous.get(c.uid);
      const tags = JSON.stringify(c.tags);
      if (
        before &&
        before.project === c.project &&
        before.name === c.name &&
        before.state === c.state &&
        before.health === c.health &&
        JSON.stringify(before.tags) === tags
      ) {
        continue;
      }
      await this.db.run(upsert, [scope, c.uid, c.project, c.name, c.state, c.health, tags, at]);
      written.push(c.uid);
    }
    for (const uid of previous.keys()) {
      if (seen.has(uid)) continue;
      await this.db.run(remove, [scope, uid]);
      written.push(uid);
    }
    return written;
  }

  async hasBaseline(project: string): Promise<boolean> {
    return !!(await this.db.get("SELECT 1 AS one FROM notify_baselines WHERE project = ?", [
      project,
    ]));
  }

  async markBaseline(project: string, at: string): Promise<void> {
    await this.db.run(
      `INSERT INTO notify_baselines (project, at) VALUES (?, ?)
       ON CONFLICT (project) DO UPDATE SET at = excluded.at`,
      [project, at],
    );
  }

  async raisedAlerts(): Promise<Map<string, RaisedAlert>> {
    const rows = await this.db.all<RaisedAlert>(
      `SELECT cluster_uid AS "clusterUid", kind, reason, raised_at AS "raisedAt" FROM notify_alerts`,
    );
    return new Map(rows.map((row) => [alertKey(row.clusterUid, row.kind), row]));
  }

  async raiseAlert(alert: RaisedAlert): Promise<void> {
    await this.db.run(
      `INSERT INTO notify_alerts (cluster_uid, kind, reason, raised_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (cluster_uid, kind) DO UPDATE SET reason = excluded.reason,
         raised_at = excluded.raised_at`,
      [alert.clusterUid, alert.kind, alert.reason, alert.raisedAt],
    );
  }

  async resolveAlert(clusterUid: string, kind: string): Promise<void> {
    await this.db.run("DELETE FROM notify_alerts WHERE cluster_uid = ? AND kind = ?", [
      clusterUid,
      kind,
    ]);
  }

  async flapHistories(): Promise<Map<string, FlapHistory>> {
    const rows = await this.db.all<{ cluster_uid: string; transitions: string; reported: number }>(
      "SELECT cluster_uid, transitions, reported FROM notify_flaps",
    );
    return new Map(
      rows.map((row) => [
        row.cluster_uid,
        { transitions: parseTransitions(row.transitions), reported: row.reported === 1 },
      ]),
    );
  }

  /** Replaces every flap history; meant for the poll's transaction (see `replace`). */
  async saveFlapHistories(histories: ReadonlyMap<string, FlapHistory>): Promise<void> {
    await this.db.run("DELETE FROM notify_flaps");
    // ROWS_PER_INSERT to a statement, one statement at a time: the poll's fenced transaction is
    // one client, which pg 9 lets run one query only, and each round trip lengthens it
    for (const part of chunks([...histories], ROWS_PER_INSERT)) {
      await this.db.run(
        `INSERT INTO notify_flaps (cluster_uid, transitions, reported) VALUES ${part.map(() => "(?, ?, ?)").join(", ")}`,
        part.flatMap(([uid, history]) => [
          uid,
          JSON.stringify(history.transitions),
          history.reported ? 1 : 0,
        ]),
      );
    }
  }
}
