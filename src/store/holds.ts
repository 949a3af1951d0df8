import type { Hold, HoldKind } from "../model/notification.ts";
import type { SqlExecutor } from "./sql.ts";

interface Raw {
  channel: string;
  cluster_uid: string;
  kind: HoldKind;
  cluster_name: string;
  project_uid: string;
  user_id: string;
  reason: string | null;
  started_at: number;
  until_ms: number;
}

const toHold = (raw: Raw): Hold => ({
  channel: raw.channel,
  clusterUid: raw.cluster_uid,
  kind: raw.kind,
  clusterName: raw.cluster_name,
  projectUid: raw.project_uid,
  userId: raw.user_id,
  reason: raw.reason ?? undefined,
  startedAt: raw.started_at,
  untilMs: raw.until_ms,
});

/**
 * Snoozes and mutes: per channel and cluster, one of each kind at most. A hold whose time has
 * passed stays here until the pipeline ends it (and posts what happened meanwhile), so an end is
 * never missed across a restart.
 */
export class HoldStore {
  constructor(private readonly db: SqlExecutor) {}

  /** Starts or replaces (a new snooze length, a new mute end) the hold. */
  async put(hold: Hold): Promise<void> {
    await this.db.run(
      `INSERT INTO notify_holds (channel, cluster_uid, kind, cluster_name, project_uid, user_id,
         reason, started_at, until_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (channel, cluster_uid, kind) DO UPDATE SET cluster_name = excluded.cluster_name,
         project_uid = excluded.project_uid, user_id = excluded.user_id,
         reason = excluded.reason, until_ms = excluded.until_ms`,
      [
        hold.channel,
        hold.clusterUid,
        hold.kind,
        hold.clusterName,
        hold.projectUid,
        hold.userId,
        hold.reason ?? null,
        hold.startedAt,
        hold.untilMs,
      ],
    );
  }

  async get(channel: string, clusterUid: string, kind: HoldKind): Promise<Hold | undefined> {
    const row = await this.db.get<Raw>(
      "SELECT * FROM notify_holds WHERE channel = ? AND cluster_uid = ? AND kind = ?",
      [channel, clusterUid, kind],
    );
    return row ? toHold(row) : undefined;
  }

  /** Every hold of the channel (or all channels), soonest end first. */
  async list(channel?: string): Promise<Hold[]> {
    const rows = channel
      ? await this.db.all<Raw>("SELECT * FROM notify_holds WHERE channel = ? ORDER BY until_ms", [
          channel,
        ])
      : await this.db.all<Raw>("SELECT * FROM notify_holds ORDER BY until_ms");
    return rows.map(toHold);
  }

  /** Holds still running at `nowMs` (until > now), soonest end first: what lists show. */
  async running(nowMs: number, channel?: string): Promise<Hold[]> {
    return (await this.list(channel)).filter((hold) => hold.untilMs > nowMs);
  }

  /** Holds whose time has come (until ≤ now): the pipeline ends them. */
  async due(nowMs: number): Promise<Hold[]> {
    const rows = await this.db.all<Raw>(
      "SELECT * FROM notify_holds WHERE until_ms <= ? ORDER BY until_ms",
      [nowMs],
    );
    return rows.map(toHold);
  }

  async remove(channel: string, clusterUid: string, kind: HoldKind): Promise<boolean> {
    const result = await this.db.run(
      "DELETE FROM notify_holds WHERE channel = ? AND cluster_uid = ? AND kind = ?",
      [channel, clusterUid, kind],
    );
    return result.changes > 0;
  }

  /** News kept back while held, in the order it happened. */
  async keep(channel: string, clusterUid: string, payload: unknown, at: string): Promise<void> {
    await this.db.run(
      "INSERT INTO notify_held_news (channel, cluster_uid, payload, at) VALUES (?, ?, ?, ?)",
      [channel, clusterUid, JSON.stringify(payload), at],
    );
  }

  async kept(
    channel: string,
    clusterUid: string,
  ): Promise<Array<{ payload: unknown; at: string }>> {
    const rows = await this.db.all<{ payload: string; at: string }>(
      "SELECT payload, at FROM notify_held_news WHERE channel = ? AND cluster_uid = ? ORDER BY id",
      [channel, clusterUid],
    );
    return rows.map((row) => ({ payload: JSON.parse(row.payload) as unknown, at: row.at }));
  }

  /** Forgets the kept news once summarised (still held by another kind: the caller decides). */
  async forgetKept(channel: string, clusterUid: string): Promise<number> {
    const result = await this.db.run(
      "DELETE FROM notify_held_news WHERE channel = ? AND cluster_uid = ?",
      [channel, clusterUid],
    );
    return result.changes;
  }
}
