import type { Db } from "./db.ts";

export interface Card {
  channel: string;
  clusterUid: string;
  ts: string;
  threadTs?: string;
}

/** One card per (channel, cluster): the message later changes edit in place. */
export class CardStore {
  constructor(private readonly db: Db) {}

  get(channel: string, clusterUid: string): Card | undefined {
    const row = this.db
      .prepare("SELECT ts, thread_ts FROM notify_cards WHERE channel = ? AND cluster_uid = ?")
      .get(channel, clusterUid) as { ts: string; thread_ts: string | null } | undefined;
    return row
      ? { channel, clusterUid, ts: row.ts, threadTs: row.thread_ts ?? undefined }
      : undefined;
  }

  put(card: Card, at: string): void {
    this.db
      .prepare(
        `INSERT INTO notify_cards (channel, cluster_uid, ts, thread_ts, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (channel, cluster_uid) DO UPDATE SET ts = excluded.ts,
           thread_ts = excluded.thread_ts, updated_at = excluded.updated_at`,
      )
      .run(card.channel, card.clusterUid, card.ts, card.threadTs ?? null, at);
  }

  /** Only if absent: a launch's own message becomes the card unless one exists already. */
  putIfAbsent(card: Card, at: string): void {
    this.db
      .prepare(
        "INSERT OR IGNORE INTO notify_cards (channel, cluster_uid, ts, thread_ts, updated_at) VALUES (?, ?, ?, ?, ?)",
      )
      .run(card.channel, card.clusterUid, card.ts, card.threadTs ?? null, at);
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
