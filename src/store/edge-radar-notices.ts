import type { EdgeRiskKind } from "../model/edge-risk.ts";
import type { SqlExecutor } from "./sql.ts";

/**
 * The notice each `risks` channel got of each edge risk (migration 114, issue 39 item 5), keyed
 * by channel, subject (token, host or cluster) and kind. A row is claimed (ts null) before its
 * post, so two passes never post it twice; it goes once its "no longer holds" edit is made.
 */

export interface EdgeNotice {
  channel: string;
  subjectKind: "token" | "host" | "cluster";
  subjectUid: string;
  kind: EdgeRiskKind;
  name: string;
  ts: string | null;
  /** the fingerprint of what it shows */
  shown: string;
  updatedAt: number;
}

type Key = Pick<EdgeNotice, "channel" | "subjectKind" | "subjectUid" | "kind">;

const WHERE_KEY = "channel = ? AND subject_kind = ? AND subject_uid = ? AND kind = ?";
const keyParams = (key: Key) => [key.channel, key.subjectKind, key.subjectUid, key.kind];

export class EdgeRadarNoticeStore {
  constructor(private readonly db: SqlExecutor) {}

  async all(): Promise<EdgeNotice[]> {
    const rows = await this.db.all<{
      channel: string;
      subject_kind: EdgeNotice["subjectKind"];
      subject_uid: string;
      kind: EdgeRiskKind;
      subject_name: string;
      ts: string | null;
      shown: string;
      updated_at: number | string;
    }>(
      "SELECT channel, subject_kind, subject_uid, kind, subject_name, ts, shown, updated_at FROM edge_radar_notices",
    );
    return rows.map((row) => ({
      channel: row.channel,
      subjectKind: row.subject_kind,
      subjectUid: row.subject_uid,
      kind: row.kind,
      name: row.subject_name,
      ts: row.ts,
      shown: row.shown,
      updatedAt: Number(row.updated_at),
    }));
  }

  /**
   * Claims the notice before it is posted: true when this pass may post it (no row, or a claim
   * whose post was lost before `lostBefore`, which post-once then finds or posts).
   */
  async claim(
    key: Key,
    name: string,
    shown: string,
    now: number,
    lostBefore: number,
  ): Promise<boolean> {
    const taken = await this.db.run(
      `INSERT INTO edge_radar_notices (channel, subject_kind, subject_uid, kind, subject_name, ts, shown, updated_at)
       VALUES (?, ?, ?, ?, ?, NULL, ?, ?)
       ON CONFLICT (channel, subject_kind, subject_uid, kind) DO UPDATE SET updated_at = excluded.updated_at,
         shown = excluded.shown, subject_name = excluded.subject_name
       WHERE edge_radar_notices.ts IS NULL AND edge_radar_notices.updated_at <= ?`,
      [...keyParams(key), name, shown, now, lostBefore],
    );
    return taken.changes > 0;
  }

  async posted(key: Key, ts: string, now: number): Promise<void> {
    await this.db.run(`UPDATE edge_radar_notices SET ts = ?, updated_at = ? WHERE ${WHERE_KEY}`, [
      ts,
      now,
      ...keyParams(key),
    ]);
  }

  async shown(key: Key, shown: string, name: string, now: number): Promise<void> {
    await this.db.run(
      `UPDATE edge_radar_notices SET shown = ?, subject_name = ?, updated_at = ? WHERE ${WHERE_KEY}`,
      [shown, name, now, ...keyParams(key)],
    );
  }

  async forget(key: Key): Promise<void> {
    await this.db.run(`DELETE FROM edge_radar_notices WHERE ${WHERE_KEY}`, keyParams(key));
  }
}
