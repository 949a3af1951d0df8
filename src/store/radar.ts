import type { ClusterSnap } from "../model/cluster.ts";
import { type RadarReading, type Risk, type RiskKind, riskFingerprint } from "../model/risk.ts";
import { toSnap } from "./snapshots.ts";
import type { SqlExecutor, SqlValue } from "./sql.ts";

/**
 * The radar's memory (migration 72): each cluster's last reading, the pending repaves the fleet
 * list showed (since when the radar first saw each), the risks that hold, and the notice each
 * `risks` channel got of each risk. Times are epoch milliseconds.
 */

export interface RadarCluster {
  uid: string;
  name: string;
  /**
   * the cluster's project UID (the snapshot's project_uid): what `risks project:<p>` matches.
   * At tenant scope the poll's scope column is "" for every cluster, so it is not the project.
   */
  project: string;
  /** the scope the poll read it in ("" = the tenant): the scope the radar reads Palette in */
  scope?: string;
  tags: string[];
}

/** the snapshot's project: its project_uid, else its scope (older rows) */
const SNAP_PROJECT = "COALESCE(NULLIF(s.project_uid, ''), s.project)";

/** a snapshot's cluster as the radar reads it (the due ones, a project's, one by UID) */
const SNAPSHOT_CLUSTER_COLUMNS = `s.cluster_uid AS uid, s.name AS name, ${SNAP_PROJECT} AS project,
  s.project AS scope, s.tags AS tags`;

interface SnapshotClusterRow {
  uid: string;
  name: string;
  project: string;
  scope: string;
  tags: string;
}

export interface StoredRisk {
  clusterUid: string;
  name: string;
  project: string;
  risk: Risk;
  since: number;
  /** when the radar last read the cluster (undefined: a repave risk of a cluster not read yet) */
  readAt?: number;
}

export interface Notice {
  channel: string;
  clusterUid: string;
  kind: RiskKind;
  /** the Slack message; null while its post is under way or was lost */
  ts: string | null;
  /** the fingerprint of what it shows */
  shown: string;
  gone: boolean;
  /** the roll-up group it is told in (its ts is the roll-up's), or null: its own message */
  rollup: string | null;
}

/** A roll-up of risk notices alike in one channel (migration 87). */
export interface Rollup {
  channel: string;
  group: string;
  kind: RiskKind;
  ts: string;
  ended: number;
  /**
   * raised by every change of its members (migration 88): "shown" and "dropped" are recorded
   * only at the version read before the edit, so a change made meanwhile is edited in its turn
   */
  version: number;
}

const IN_CHUNK = 400;

interface RiskRow {
  cluster_uid: string;
  name: string;
  project: string;
  risk: string;
  since: number | string;
  read_at: number | string | null;
}

const toStoredRisk = (row: RiskRow): StoredRisk => ({
  clusterUid: row.cluster_uid,
  name: row.name,
  project: row.project,
  risk: JSON.parse(row.risk) as Risk,
  since: Number(row.since),
  ...(row.read_at !== null ? { readAt: Number(row.read_at) } : {}),
});

function parseTags(text: string): string[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter((tag) => typeof tag === "string") : [];
  } catch {
    return [];
  }
}

/** notices asked about in one statement (two parameters each, well under either backend's cap) */
const UNPOSTED_CHUNK = 200;

export class RadarStore {
  constructor(private readonly db: SqlExecutor) {}

  /**
   * The next clusters to read: in the scopes, known to the poll and not deleted, never read
   * first, then the longest unread.
   */
  async due(scopes: readonly string[], limit: number): Promise<RadarCluster[]> {
    if (scopes.length === 0) return [];
    const rows = await this.db.all<SnapshotClusterRow>(
      `SELECT ${SNAPSHOT_CLUSTER_COLUMNS}
         FROM notify_snapshots s LEFT JOIN radar_readings r ON r.cluster_uid = s.cluster_uid
        WHERE s.project IN (${scopes.map(() => "?").join(",")}) AND s.state <> 'Deleted'
        ORDER BY COALESCE(r.read_at, 0), s.cluster_uid
        LIMIT ?`,
      [...scopes, limit],
    );
    return rows.map((row) => ({ ...row, tags: parseTags(row.tags) }));
  }

  /**
   * How many clusters the sweep reads in the scopes (known to the poll, not deleted). A plain
   * count: the scopes do not overlap, and DISTINCT would build a temporary set of 50,000 UIDs
   * before every batch.
   */
  async fleetSize(scopes: readonly string[]): Promise<number> {
    if (scopes.length === 0) return 0;
    const row = await this.db.get<{ n: number | string }>(
      `SELECT COUNT(*) AS n FROM notify_snapshots
        WHERE project IN (${scopes.map(() => "?").join(",")}) AND state <> 'Deleted'`,
      [...scopes],
    );
    return Number(row?.n ?? 0);
  }

  /**
   * Clusters in the scopes whose certificates a renewal (a day-2 change, src/changes/) renewed
   * after the radar last read them: read before the rest, so their notice says the risk is gone
   * now, not after a pass over the whole fleet.
   */
  async renewedSinceRead(scopes: readonly string[], limit: number): Promise<RadarCluster[]> {
    if (scopes.length === 0) return [];
    const rows = await this.db.all<SnapshotClusterRow>(
      `SELECT DISTINCT ${SNAPSHOT_CLUSTER_COLUMNS}
         FROM changes c
         JOIN notify_snapshots s ON s.cluster_uid = c.cluster_uid
         LEFT JOIN radar_readings r ON r.cluster_uid = c.cluster_uid
        WHERE c.verb = 'renew' AND c.status = 'done'
          AND c.ended_at IS NOT NULL AND c.ended_at > COALESCE(r.read_at, 0)
          AND s.project IN (${scopes.map(() => "?").join(",")}) AND s.state <> 'Deleted'
        ORDER BY s.cluster_uid
        LIMIT ?`,
      [...scopes, limit],
    );
    return rows.map((row) => ({ ...row, tags: parseTags(row.tags) }));
  }

  async cluster(uid: string): Promise<RadarCluster | undefined> {
    const row = await this.db.get<SnapshotClusterRow>(
      `SELECT ${SNAPSHOT_CLUSTER_COLUMNS}
         FROM notify_snapshots s WHERE s.cluster_uid = ? ORDER BY s.updated_at DESC LIMIT 1`,
      [uid],
    );
    return row ? { ...row, tags: parseTags(row.tags) } : undefined;
  }

  async reading(uid: string): Promise<{ reading: RadarReading; readAt: number } | undefined> {
    const row = await this.db.get<{ reading: string; read_at: number | string }>(
      "SELECT reading, read_at FROM radar_readings WHERE cluster_uid = ?",
      [uid],
    );
    if (!row) return undefined;
    return { reading: JSON.parse(row.reading) as RadarReading, readAt: Number(row.read_at) };
  }

  async saveReading(cluster: RadarCluster, reading: RadarReading, at: number): Promise<void> {
    await this.db.run(
      `INSERT INTO radar_readings (cluster_uid, project, name, read_at, reading)
       VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (cluster_uid) DO UPDATE SET project = excluded.project, name = excluded.name,
         read_at = excluded.read_at, reading = excluded.reading`,
      [cluster.uid, cluster.project, cluster.name, at, JSON.stringify(reading)],
    );
  }

  /** When the radar first saw each of these clusters' repave pending (only those pending now). */
  async repaveSince(uids: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (let i = 0; i < uids.length; i += IN_CHUNK) {
      const part = uids.slice(i, i + IN_CHUNK);
      const rows = await this.db.all<{ cluster_uid: string; since: number | string }>(
        `SELECT cluster_uid, since FROM radar_repaves WHERE cluster_uid IN (${part.map(() => "?").join(",")})`,
        part,
      );
      for (const row of rows) out.set(row.cluster_uid, Number(row.since));
    }
    return out;
  }

  async allRepaves(): Promise<Map<string, { since: number; project: string; name: string }>> {
    const rows = await this.db.all<{
      cluster_uid: string;
      since: number | string;
      project: string;
      name: string;
    }>("SELECT cluster_uid, since, project, name FROM radar_repaves");
    return new Map(
      rows.map((row) => [
        row.cluster_uid,
        { since: Number(row.since), project: row.project, name: row.name },
      ]),
    );
  }

  /**
   * The scope's pending repaves as the fleet list shows them now: new ones start at `at`, ones
   * still listed keep their start, ones gone are dropped. Returns the uids that came or went.
   */
  async replaceRepaves(
    scope: string,
    listed: ReadonlyArray<{ uid: string; name: string; projectUid?: string }>,
    at: number,
  ): Promise<string[]> {
    // a row's project is the cluster's own (the list says it); the tenant's list covers them all
    const before = await this.db.all<{ cluster_uid: string; name: string }>(
      scope === ""
        ? "SELECT cluster_uid, name FROM radar_repaves"
        : "SELECT cluster_uid, name FROM radar_repaves WHERE project = ?",
      scope === "" ? [] : [scope],
    );
    const was = new Map(before.map((row) => [row.cluster_uid, row.name]));
    const now = new Set(listed.map((item) => item.uid));
    const changed: string[] = [];
    for (const uid of was.keys()) {
      if (now.has(uid)) continue;
      await this.db.run("DELETE FROM radar_repaves WHERE cluster_uid = ?", [uid]);
      changed.push(uid);
    }
    // the ones still listed: one statement for when they were seen, a write only for a rename
    // (a reconciliation with 1,000 pending used to be 1,000 updates)
    await this.db.run(
      scope === ""
        ? "UPDATE radar_repaves SET seen_at = ?"
        : "UPDATE radar_repaves SET seen_at = ? WHERE project = ?",
      scope === "" ? [at] : [at, scope],
    );
    for (const item of listed) {
      if (was.has(item.uid)) {
        if (was.get(item.uid) !== item.name) {
          await this.db.run("UPDATE radar_repaves SET name = ? WHERE cluster_uid = ?", [
            item.name,
            item.uid,
          ]);
        }
        continue;
      }
      await this.db.run(
        `INSERT INTO radar_repaves (cluster_uid, project, name, since, seen_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (cluster_uid) DO UPDATE SET seen_at = excluded.seen_at`,
        [item.uid, item.projectUid || scope, item.name, at, at],
      );
      changed.push(item.uid);
    }
    return changed;
  }

  async risksOf(uid: string): Promise<StoredRisk[]> {
    return this.#risks("WHERE k.cluster_uid = ?", [uid]);
  }

  /** Every risk that holds, optionally in one project. */
  async risks(project?: string): Promise<StoredRisk[]> {
    return project === undefined
      ? this.#risks("", [])
      : this.#risks("WHERE k.project = ?", [project]);
  }

  /**
   * Every risk with its cluster's snapshot as the poll holds it (the newest, if listed in two
   * scopes), in one query: the digest filters them by each subscription.
   */
  async risksWithSnapshots(): Promise<Array<{ row: StoredRisk; snap?: ClusterSnap }>> {
    const rows = await this.db.all<
      RiskRow & {
        kind: string;
        s_project: string | null;
        project_uid: string | null;
        s_name: string | null;
        state: string | null;
        health: string | null;
        tags: string | null;
        updated_at: string | null;
      }
    >(
      `SELECT k.cluster_uid, k.kind, k.name, k.project, k.risk, k.since, r.read_at,
              s.project AS s_project, s.project_uid, s.name AS s_name, s.state, s.health, s.tags,
              s.updated_at
         FROM radar_risks k
         LEFT JOIN radar_readings r ON r.cluster_uid = k.cluster_uid
         LEFT JOIN notify_snapshots s ON s.cluster_uid = k.cluster_uid
        ORDER BY k.cluster_uid, k.kind, s.updated_at DESC`,
    );
    const out: Array<{ row: StoredRisk; snap?: ClusterSnap }> = [];
    const seen = new Set<string>();
    for (const row of rows) {
      // a cluster in two scopes joins twice: the newest snapshot (first in the order) counts
      const key = `${row.cluster_uid}\u0000${row.kind}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({
        row: toStoredRisk(row),
        ...(row.s_project !== null
          ? {
              snap: toSnap({
                project: row.s_project,
                project_uid: row.project_uid ?? "",
                cluster_uid: row.cluster_uid,
                name: row.s_name ?? row.name,
                state: row.state ?? "",
                health: row.health ?? "",
                tags: row.tags ?? "[]",
              }),
            }
          : {}),
      });
    }
    return out;
  }

  async #risks(where: string, params: SqlValue[]): Promise<StoredRisk[]> {
    const rows = await this.db.all<RiskRow>(
      `SELECT k.cluster_uid, k.name, k.project, k.risk, k.since, r.read_at
         FROM radar_risks k LEFT JOIN radar_readings r ON r.cluster_uid = k.cluster_uid
         ${where} ORDER BY k.cluster_uid, k.kind`,
      params,
    );
    return rows.map(toStoredRisk);
  }

  /** The cluster's risks are now `risks`: kept ones keep their start, others come or go. */
  async replaceRisks(
    cluster: Pick<RadarCluster, "uid" | "name" | "project">,
    risks: readonly Risk[],
    at: number,
  ): Promise<void> {
    const kinds = risks.map((risk) => risk.kind);
    await this.db.run(
      kinds.length === 0
        ? "DELETE FROM radar_risks WHERE cluster_uid = ?"
        : `DELETE FROM radar_risks WHERE cluster_uid = ? AND kind NOT IN (${kinds.map(() => "?").join(",")})`,
      [cluster.uid, ...kinds],
    );
    for (const risk of risks) {
      await this.db.run(
        `INSERT INTO radar_risks (cluster_uid, kind, project, name, severity, risk, since)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (cluster_uid, kind) DO UPDATE SET project = excluded.project,
           name = excluded.name, severity = excluded.severity, risk = excluded.risk`,
        [
          cluster.uid,
          risk.kind,
          cluster.project,
          cluster.name,
          risk.severity,
          JSON.stringify(risk),
          at,
        ],
      );
    }
  }

  /**
   * Clusters the radar still holds rows of (a reading, a risk, a notice) that the poll no longer
   * lists alive in the scopes: deleted (`gone`: their notices say the risks no longer hold), or
   * of a project no longer in PALETTE_PROJECTS (`outOfScope`: dropped without a word). Nothing
   * is said before the poll has listed every scope once: an empty snapshot is not a deleted fleet.
   */
  async orphans(
    scopes: readonly string[],
    projects: readonly string[],
    limit: number,
  ): Promise<{
    gone: Array<Pick<RadarCluster, "uid" | "name" | "project">>;
    outOfScope: string[];
  }> {
    if (scopes.length === 0) return { gone: [], outOfScope: [] };
    const listed = await this.db.get<{ n: number | string }>(
      `SELECT COUNT(*) AS n FROM notify_baselines WHERE project IN (${scopes.map(() => "?").join(",")})`,
      [...scopes],
    );
    if (Number(listed?.n ?? 0) < scopes.length) return { gone: [], outOfScope: [] };
    const rows = await this.db.all<{ cluster_uid: string; name: string; project: string }>(
      `SELECT x.cluster_uid, MAX(x.name) AS name, MAX(x.project) AS project
         FROM (SELECT cluster_uid, name, project FROM radar_readings
               UNION ALL SELECT cluster_uid, name, project FROM radar_risks
               UNION ALL SELECT cluster_uid, '' AS name, '' AS project FROM radar_notices) x
        WHERE NOT EXISTS (SELECT 1 FROM notify_snapshots s
                           WHERE s.cluster_uid = x.cluster_uid
                             AND s.project IN (${scopes.map(() => "?").join(",")})
                             AND s.state <> 'Deleted')
        GROUP BY x.cluster_uid
        ORDER BY x.cluster_uid
        LIMIT ?`,
      [...scopes, limit],
    );
    const watched = new Set(projects);
    const gone: Array<Pick<RadarCluster, "uid" | "name" | "project">> = [];
    const outOfScope: string[] = [];
    for (const row of rows) {
      if (watched.size > 0 && row.project !== "" && !watched.has(row.project)) {
        outOfScope.push(row.cluster_uid);
      } else {
        gone.push({
          uid: row.cluster_uid,
          name: row.name || row.cluster_uid,
          project: row.project,
        });
      }
    }
    return { gone, outOfScope };
  }

  /** The pending repaves of projects no longer watched (PALETTE_PROJECTS changed). */
  async dropRepavesOutside(projects: readonly string[]): Promise<void> {
    if (projects.length === 0) return;
    await this.db.run(
      `DELETE FROM radar_repaves WHERE project NOT IN (${projects.map(() => "?").join(",")})`,
      [...projects],
    );
  }

  /**
   * Forgets a cluster: its reading, risks and pending repave, and its notices; with
   * `keepUnended`, notices still showing a risk (their "no longer holds" edit failed) stay, so
   * the edit is tried again at the next look.
   */
  async forgetCluster(uid: string, keepUnended = false): Promise<void> {
    await this.db.run("DELETE FROM radar_readings WHERE cluster_uid = ?", [uid]);
    await this.db.run("DELETE FROM radar_risks WHERE cluster_uid = ?", [uid]);
    await this.db.run("DELETE FROM radar_repaves WHERE cluster_uid = ?", [uid]);
    await this.db.run(
      keepUnended
        ? "DELETE FROM radar_notices WHERE cluster_uid = ? AND (gone = 1 OR ts IS NULL)"
        : "DELETE FROM radar_notices WHERE cluster_uid = ?",
      [uid],
    );
  }

  /** What each cluster's stored risk of one kind shows (riskFingerprint), by cluster. */
  async shownRisks(kind: RiskKind): Promise<Map<string, string>> {
    const rows = await this.db.all<{ cluster_uid: string; risk: string }>(
      "SELECT cluster_uid, risk FROM radar_risks WHERE kind = ?",
      [kind],
    );
    return new Map(
      rows.map((row) => [row.cluster_uid, riskFingerprint(JSON.parse(row.risk) as Risk)]),
    );
  }

  /** Risk counts by severity (App Home, digest). */
  async counts(): Promise<Record<string, number>> {
    const rows = await this.db.all<{ severity: string; n: number | string }>(
      "SELECT severity, COUNT(*) AS n FROM radar_risks GROUP BY severity",
    );
    return Object.fromEntries(rows.map((row) => [row.severity, Number(row.n)]));
  }

  async notices(clusterUid: string): Promise<Notice[]> {
    const rows = await this.db.all<{
      channel: string;
      cluster_uid: string;
      kind: RiskKind;
      ts: string | null;
      shown: string;
      gone: number;
      rollup: string | null;
    }>(
      "SELECT channel, cluster_uid, kind, ts, shown, gone, rollup FROM radar_notices WHERE cluster_uid = ?",
      [clusterUid],
    );
    return rows.map((row) => ({
      channel: row.channel,
      clusterUid: row.cluster_uid,
      kind: row.kind,
      ts: row.ts,
      shown: row.shown,
      gone: Number(row.gone) === 1,
      rollup: row.rollup,
    }));
  }

  /**
   * Claims the first notice of a risk in a channel before it is posted; false when one exists
   * (another pass, or a post lost mid-way: never posted twice).
   */
  /**
   * Claims the first notice of a risk in a channel, once. A claim whose post never recorded a ts
   * (Slack failed in a way that may or may not have posted) can be claimed again once it is older
   * than `retryBefore`, so such a notice is tried again rather than lost.
   */
  async claimNotice(
    channel: string,
    clusterUid: string,
    kind: RiskKind,
    shown: string,
    at: number,
    retryBefore: number,
  ): Promise<boolean> {
    const result = await this.db.run(
      `INSERT INTO radar_notices (channel, cluster_uid, kind, ts, shown, gone, updated_at)
       VALUES (?, ?, ?, NULL, ?, 0, ?)
       ON CONFLICT (channel, cluster_uid, kind) DO UPDATE SET shown = excluded.shown,
         updated_at = excluded.updated_at, retry_at = NULL
       WHERE radar_notices.ts IS NULL
         AND (radar_notices.updated_at <= ? OR radar_notices.retry_at <= ?)`,
      [channel, clusterUid, kind, shown, at, retryBefore, at],
    );
    return result.changes > 0;
  }

  /**
   * A post Slack took: its ts recorded on the claim, only while the claim is unposted (a post
   * another replica recorded meanwhile is not overwritten). False when nothing was recorded.
   */
  async noticePosted(
    channel: string,
    clusterUid: string,
    kind: RiskKind,
    ts: string,
    at: number,
  ): Promise<boolean> {
    const result = await this.db.run(
      `UPDATE radar_notices SET ts = ?, updated_at = ?, retry_at = NULL
        WHERE channel = ? AND cluster_uid = ? AND kind = ? AND ts IS NULL`,
      [ts, at, channel, clusterUid, kind],
    );
    return result.changes > 0;
  }

  async noticeShown(
    notice: Pick<Notice, "channel" | "clusterUid" | "kind">,
    shown: string,
    gone: boolean,
    at: number,
  ): Promise<void> {
    await this.db.run(
      `UPDATE radar_notices SET shown = ?, gone = ?, updated_at = ?, retry_at = NULL
        WHERE channel = ? AND cluster_uid = ? AND kind = ?`,
      [shown, gone ? 1 : 0, at, notice.channel, notice.clusterUid, notice.kind],
    );
  }

  /** Slack said "not now" (a 429): the notice's post or edit is tried again at `at`. */
  async noticeRetryAt(
    notice: Pick<Notice, "channel" | "clusterUid" | "kind">,
    at: number,
  ): Promise<void> {
    await this.db.run(
      "UPDATE radar_notices SET retry_at = ? WHERE channel = ? AND cluster_uid = ? AND kind = ?",
      [at, notice.channel, notice.clusterUid, notice.kind],
    );
  }

  /**
   * Clusters with a notice waiting to be tried again: a 429's Retry-After has passed, or a post
   * that never recorded its ts is older than `lostBefore`.
   */
  async noticesDue(now: number, lostBefore: number, limit: number): Promise<string[]> {
    const rows = await this.db.all<{ cluster_uid: string }>(
      `SELECT DISTINCT cluster_uid FROM radar_notices
        WHERE retry_at <= ? OR (ts IS NULL AND updated_at <= ?)
        ORDER BY cluster_uid LIMIT ?`,
      [now, lostBefore, limit],
    );
    return rows.map((row) => row.cluster_uid);
  }

  /**
   * Of `notices` (one channel's, about to be posted), those still claimed and not posted (ts
   * NULL), as `${clusterUid} ${kind}`: checked before a post goes out, so a claim forgotten or
   * taken over meanwhile is not posted. Only those keys are read (in a storm a channel holds
   * many claims, and this runs in a fenced transaction before every post).
   */
  async unposted(
    channel: string,
    notices: ReadonlyArray<Pick<Notice, "clusterUid" | "kind">>,
  ): Promise<Set<string>> {
    const found = new Set<string>();
    for (let at = 0; at < notices.length; at += UNPOSTED_CHUNK) {
      const chunk = notices.slice(at, at + UNPOSTED_CHUNK);
      const rows = await this.db.all<{ cluster_uid: string; kind: string }>(
        `SELECT cluster_uid, kind FROM radar_notices WHERE channel = ? AND ts IS NULL
           AND (${chunk.map(() => "(cluster_uid = ? AND kind = ?)").join(" OR ")})`,
        [channel, ...chunk.flatMap((notice) => [notice.clusterUid, notice.kind])],
      );
      for (const row of rows) found.add(unpostedKey(row.cluster_uid, row.kind));
    }
    return found;
  }

  /**
   * In channels with no risks subscription at all (`channels` are those with one, paused ones
   * included): the claims never posted are forgotten, and a posted notice's edit that Slack said
   * "not now" to is given up (its row, which knows the message, stays). Nothing more is said
   * there, and they no longer fill the retries' batch. A paused channel keeps its notices: once
   * resumed, its messages are edited, not posted again.
   */
  async forgetDueOutside(channels: readonly string[]): Promise<number> {
    const outside =
      channels.length === 0 ? "" : `AND channel NOT IN (${channels.map(() => "?").join(",")})`;
    const forgotten = await this.db.run(`DELETE FROM radar_notices WHERE ts IS NULL ${outside}`, [
      ...channels,
    ]);
    const givenUp = await this.db.run(
      `UPDATE radar_notices SET retry_at = NULL
        WHERE ts IS NOT NULL AND retry_at IS NOT NULL ${outside}`,
      [...channels],
    );
    return forgotten.changes + givenUp.changes;
  }

  /** A risk that was gone holds again: its old notice is forgotten, so a new one is posted. */
  async forgetNotice(notice: Pick<Notice, "channel" | "clusterUid" | "kind">): Promise<void> {
    await this.db.run(
      "DELETE FROM radar_notices WHERE channel = ? AND cluster_uid = ? AND kind = ?",
      [notice.channel, notice.clusterUid, notice.kind],
    );
  }
  /** The open roll-ups, keyed by channel and group (src/model/risk-rollup.ts rollupKey). */
  async rollups(): Promise<Rollup[]> {
    const rows = await this.db.all<{
      channel: string;
      group_key: string;
      kind: RiskKind;
      ts: string;
      ended: number | string;
      version: number | string;
    }>("SELECT channel, group_key, kind, ts, ended, version FROM radar_rollups");
    return rows.map(toRollup);
  }

  /** A roll-up was posted: it is open, its message behind nobody yet (a new version). */
  async rollupPosted(
    rollup: Pick<Rollup, "channel" | "group" | "kind" | "ts">,
    at: number,
  ): Promise<void> {
    await this.db.run(
      `INSERT INTO radar_rollups (channel, group_key, kind, ts, ended, stale, retry_at, updated_at)
       VALUES (?, ?, ?, ?, 0, 0, NULL, ?)
       ON CONFLICT (channel, group_key) DO UPDATE SET kind = excluded.kind, ts = excluded.ts,
         ended = 0, stale = 0, retry_at = NULL, updated_at = excluded.updated_at,
         version = radar_rollups.version + 1`,
      [rollup.channel, rollup.group, rollup.kind, rollup.ts, at],
    );
  }

  /**
   * Claimed notices told in a roll-up: they take its group and its message, those still unposted
   * only (as noticePosted). Returns how many joined.
   */
  async joinRollup(
    notices: ReadonlyArray<Pick<Notice, "channel" | "clusterUid" | "kind">>,
    group: string,
    ts: string,
    at: number,
  ): Promise<number> {
    let joined = 0;
    for (const notice of notices) {
      const result = await this.db.run(
        `UPDATE radar_notices SET ts = ?, rollup = ?, updated_at = ?, retry_at = NULL
          WHERE channel = ? AND cluster_uid = ? AND kind = ? AND ts IS NULL`,
        [ts, group, at, notice.channel, notice.clusterUid, notice.kind],
      );
      joined += result.changes;
    }
    return joined;
  }

  /**
   * Its members changed (`ended` more no longer hold): its message is edited at the next look,
   * and the version moves on, so an edit in flight that read the one before does not clear it.
   */
  async rollupStale(channel: string, group: string, ended: number, at: number): Promise<void> {
    await this.db.run(
      `UPDATE radar_rollups SET stale = 1, ended = ended + ?, updated_at = ?, version = version + 1
        WHERE channel = ? AND group_key = ?`,
      [ended, at, channel, group],
    );
  }

  /** Roll-ups whose message is behind their members, Slack's Retry-After passed. */
  async staleRollups(now: number, limit: number): Promise<Rollup[]> {
    const rows = await this.db.all<{
      channel: string;
      group_key: string;
      kind: RiskKind;
      ts: string;
      ended: number | string;
      version: number | string;
    }>(
      `SELECT channel, group_key, kind, ts, ended, version FROM radar_rollups
        WHERE stale = 1 AND (retry_at IS NULL OR retry_at <= ?)
        ORDER BY channel, group_key LIMIT ?`,
      [now, limit],
    );
    return rows.map(toRollup);
  }

  /**
   * The first `limit` members that still hold (by name) with their risk as stored, and how many
   * hold in all.
   */
  async rollupMembers(
    channel: string,
    group: string,
    limit: number,
  ): Promise<{ members: Array<{ clusterUid: string; name: string; risk?: Risk }>; count: number }> {
    const count = await this.db.get<{ n: number | string }>(
      "SELECT COUNT(*) AS n FROM radar_notices WHERE channel = ? AND rollup = ?",
      [channel, group],
    );
    const rows = await this.db.all<{
      cluster_uid: string;
      name: string | null;
      risk: string | null;
    }>(
      `SELECT n.cluster_uid, k.name, k.risk FROM radar_notices n
         LEFT JOIN radar_risks k ON k.cluster_uid = n.cluster_uid AND k.kind = n.kind
        WHERE n.channel = ? AND n.rollup = ?
        ORDER BY k.name, n.cluster_uid LIMIT ?`,
      [channel, group, limit],
    );
    return {
      count: Number(count?.n ?? 0),
      members: rows.map((row) => ({
        clusterUid: row.cluster_uid,
        name: row.name ?? row.cluster_uid,
        ...(row.risk !== null ? { risk: JSON.parse(row.risk) as Risk } : {}),
      })),
    };
  }

  /**
   * The roll-up's message shows its members as they were at `version`; false (it stays stale)
   * when a member changed since, so that change is edited at the next look.
   */
  async rollupShown(channel: string, group: string, version: number, at: number): Promise<boolean> {
    const result = await this.db.run(
      `UPDATE radar_rollups SET stale = 0, retry_at = NULL, updated_at = ?
        WHERE channel = ? AND group_key = ? AND version = ?`,
      [at, channel, group, version],
    );
    return result.changes > 0;
  }

  /** Slack said "not now" to the roll-up's edit: tried again at `at`. */
  async rollupRetryAt(channel: string, group: string, at: number): Promise<void> {
    await this.db.run("UPDATE radar_rollups SET retry_at = ? WHERE channel = ? AND group_key = ?", [
      at,
      channel,
      group,
    ]);
  }

  /**
   * The roll-up is over (every member ended and said so) or its message is gone: the roll-up
   * and any notice still in it are forgotten (one that still holds is noticed afresh). With
   * `version`, only at that version (false: a member joined or changed since, it stays); run it
   * in a transaction.
   */
  async dropRollup(channel: string, group: string, version?: number): Promise<boolean> {
    const dropped = await this.db.run(
      `DELETE FROM radar_rollups WHERE channel = ? AND group_key = ?${
        version === undefined ? "" : " AND version = ?"
      }`,
      version === undefined ? [channel, group] : [channel, group, version],
    );
    if (dropped.changes === 0) return false;
    await this.db.run("DELETE FROM radar_notices WHERE channel = ? AND rollup = ?", [
      channel,
      group,
    ]);
    return true;
  }
}

/** a notice's key in `unposted` */
export const unpostedKey = (clusterUid: string, kind: string): string => `${clusterUid} ${kind}`;

const toRollup = (row: {
  channel: string;
  group_key: string;
  kind: RiskKind;
  ts: string;
  ended: number | string;
  version: number | string;
}): Rollup => ({
  channel: row.channel,
  group: row.group_key,
  kind: row.kind,
  ts: row.ts,
  ended: Number(row.ended),
  version: Number(row.version),
});
