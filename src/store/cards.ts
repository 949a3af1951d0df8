import type { CardPayload } from "../model/notification.ts";
import type { Db } from "./db.ts";

export interface Card {
  channel: string;
  clusterUid: string;
  ts: string;
  threadTs?: string;
  /** set when another part of the bot owns the message (e.g. "launch"): never chat.update it */
  owner?: string;
  /** what the card shows now, so an action (ack, snooze…) can render it again */
  payload?: CardPayload;
}

/** One card per (channel, cluster): the message later changes edit in place. */
export class CardStore {
  constructor(private readonly db: Db) {}

  get(channel: string, clusterUid: string): Card | undefined {
    const row = this.db
      .prepare(
        "SELECT ts, thread_ts, owner, payload FROM notify_cards WHERE channel = ? AND cluster_uid = ?",
      )
      .get(channel, clusterUid) as
      | { ts: string; thread_ts: string | null; owner: string | null; payload: string | null }
      | undefined;
    if (!row) return undefined;
    return {
      channel,
      clusterUid,
      ts: row.ts,
      threadTs: row.thread_ts ?? undefined,
      owner: row.owner ?? undefined,
      payload: row.payload ? (JSON.parse(row.payload) as CardPayload) : undefined,
    };
  }

  /** The card's message is at `ts` in `channel`: which cluster is it? (actions carry only ts) */
  byTs(channel: string, ts: string): Card | undefined {
    const row = this.db
      .prepare("SELECT cluster_uid FROM notify_cards WHERE channel = ? AND ts = ?")
      .get(channel, ts) as { cluster_uid: string } | undefined;
    return row ? this.get(channel, row.cluster_uid) : undefined;
  }

  /** Every card of a channel (the console finds one by its cluster's name). */
  inChannel(channel: string): Card[] {
    const rows = this.db
      .prepare("SELECT cluster_uid FROM notify_cards WHERE channel = ? ORDER BY cluster_uid")
      .all(channel) as Array<{ cluster_uid: string }>;
    return rows.flatMap((row) => this.get(channel, row.cluster_uid) ?? []);
  }

  /** A payload left out keeps the one stored (a launch card adopted keeps no payload). */
  put(card: Card, at: string): void {
    this.db
      .prepare(
        `INSERT INTO notify_cards (channel, cluster_uid, ts, thread_ts, updated_at, owner, payload)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (channel, cluster_uid) DO UPDATE SET ts = excluded.ts,
           thread_ts = excluded.thread_ts, updated_at = excluded.updated_at, owner = excluded.owner,
           payload = COALESCE(excluded.payload, notify_cards.payload)`,
      )
      .run(
        card.channel,
        card.clusterUid,
        card.ts,
        card.threadTs ?? null,
        at,
        card.owner ?? null,
        card.payload ? JSON.stringify(card.payload) : null,
      );
  }

  /** What the card shows after an update in place. */
  setPayload(channel: string, clusterUid: string, payload: CardPayload): void {
    this.db
      .prepare("UPDATE notify_cards SET payload = ? WHERE channel = ? AND cluster_uid = ?")
      .run(JSON.stringify(payload), channel, clusterUid);
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
