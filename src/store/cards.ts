import type { Db } from "./db.ts";

export interface Card {
  channel: string;
  clusterUid: string;
  ts: string;
  threadTs?: string;
  /** set when another part of the bot owns the message (e.g. "launch"): never chat.update it */
  owner?: string;
}

/** One card per (channel, cluster): the message later changes edit in place. */
export class CardStore {
  constructor(private readonly db: Db) {}

  get(channel: string, clusterUid: string): Card | undefined {
    const row = this.db
      .prepare(
        "SELECT ts, thread_ts, owner FROM notify_cards WHERE channel = ? AND cluster_uid = ?",
      )
      .get(channel, clusterUid) as
      | { ts: string; thread_ts: string | null; owner: string | null }
      | undefined;
    if (!row) return undefined;
    return {
      channel,
      clusterUid,
      ts: row.ts,
      threadTs: row.thread_ts ?? undefined,
      owner: row.owner ?? undefined,
    };
  }

  put(card: Card, at: string): void {
    this.db
      .prepare(
        `INSERT INTO notify_cards (channel, cluster_uid, ts, thread_ts, updated_at, owner) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (channel, cluster_uid) DO UPDATE SET ts = excluded.ts,
           thread_ts = excluded.thread_ts, updated_at = excluded.updated_at, owner = excluded.owner`,
      )
      .run(card.channel, card.clusterUid, card.ts, card.threadTs ?? null, at, card.owner ?? null);
  }

  remove(channel: string, clusterUid: string): void {
    this.db
      .prepare("DELETE FROM notify_cards WHERE channel = ? AND cluster_uid = ?")
      .run(channel, clusterUid);
  }

  count(): number {
    return (this.db.prepare("SELECT COUNT(*) AS n FROM notify_cards").get() as { n: number }).n;
  }
}
