import type { Hold, HoldKind } from "../model/notification.ts";
import type { Db } from "./db.ts";

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
  constructor(private readonly db: Db) {}

  /** Starts or replaces (a new snooze length, a new mute end) the hold. */
  put(hold: Hold): void {
    this.db
      .prepare(
        `INSERT INTO notify_holds (channel, cluster_uid, kind, cluster_name, project_uid, user_id,
           reason, started_at, until_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (channel, cluster_uid, kind) DO UPDATE SET cluster_name = excluded.cluster_name,
           project_uid = excluded.project_uid, user_id = excluded.user_id,
           reason = excluded.reason, until_ms = excluded.until_ms`,
      )
      .run(
        hold.channel,
        hold.clusterUid,
        hold.kind,
        hold.clusterName,
        hold.projectUid,
        hold.userId,
        hold.reason ?? null,
        hold.startedAt,
        hold.untilMs,
      );
  }

  get(channel: string, clusterUid: string, kind: HoldKind): Hold | undefined {
    const row = this.db
      .prepare("SELECT * FROM notify_holds WHERE channel = ? AND cluster_uid = ? AND kind = ?")
      .get(channel, clusterUid, kind) as Raw | undefined;
    return row ? toHold(row) : undefined;
  }

  /** Every hold of the channel (or all channels), soonest end first. */
  list(channel?: string): Hold[] {
    const rows = (
      channel
        ? this.db
            .prepare("SELECT * FROM notify_holds WHERE channel = ? ORDER BY until_ms")
            .all(channel)
        : this.db.prepare("SELECT * FROM notify_holds ORDER BY until_ms").all()
    ) as Raw[];
    return rows.map(toHold);
  }

  /** Holds still running at `nowMs` (until > now), soonest end first: what lists show. */
  running(nowMs: number, channel?: string): Hold[] {
    return this.list(channel).filter((hold) => hold.untilMs > nowMs);
  }

  /** Holds whose time has come (until ≤ now): the pipeline ends them. */
  due(nowMs: number): Hold[] {
    const rows = this.db
      .prepare("SELECT * FROM notify_holds WHERE until_ms <= ? ORDER BY until_ms")
      .all(nowMs) as Raw[];
    return rows.map(toHold);
  }

  remove(channel: string, clusterUid: string, kind: HoldKind): boolean {
    return (
      this.db
        .prepare("DELETE FROM notify_holds WHERE channel = ? AND cluster_uid = ? AND kind = ?")
        .run(channel, clusterUid, kind).changes > 0
    );
  }

  /** News kept back while held, in the order it happened. */
  keep(channel: string, clusterUid: string, payload: unknown, at: string): void {
    this.db
      .prepare(
        "INSERT INTO notify_held_news (channel, cluster_uid, payload, at) VALUES (?, ?, ?, ?)",
      )
      .run(channel, clusterUid, JSON.stringify(payload), at);
  }

  kept(channel: string, clusterUid: string): Array<{ payload: unknown; at: string }> {
    const rows = this.db
      .prepare(
        "SELECT payload, at FROM notify_held_news WHERE channel = ? AND cluster_uid = ? ORDER BY id",
      )
      .all(channel, clusterUid) as Array<{ payload: string; at: string }>;
    return rows.map((row) => ({ payload: JSON.parse(row.payload) as unknown, at: row.at }));
  }

  /** Forgets the kept news once summarised (still held by another kind: the caller decides). */
  forgetKept(channel: string, clusterUid: string): number {
    return this.db
      .prepare("DELETE FROM notify_held_news WHERE channel = ? AND cluster_uid = ?")
      .run(channel, clusterUid).changes;
  }
}
