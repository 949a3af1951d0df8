import type { CardPayload } from "../model/notification.ts";
import type { SqlExecutor } from "./sql.ts";

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

interface Row {
  cluster_uid: string;
  ts: string;
  thread_ts: string | null;
  owner: string | null;
  payload: string | null;
}

const CARD_COLUMNS = "cluster_uid, ts, thread_ts, owner, payload";

const toCard = (channel: string, row: Row): Card => ({
  channel,
  clusterUid: row.cluster_uid,
  ts: row.ts,
  threadTs: row.thread_ts ?? undefined,
  owner: row.owner ?? undefined,
  payload: row.payload ? (JSON.parse(row.payload) as CardPayload) : undefined,
});

/** One card per (channel, cluster): the message later changes edit in place. */
export class CardStore {
  constructor(private readonly db: SqlExecutor) {}

  async get(channel: string, clusterUid: string): Promise<Card | undefined> {
    const row = await this.db.get<Row>(
      `SELECT ${CARD_COLUMNS} FROM notify_cards WHERE channel = ? AND cluster_uid = ?`,
      [channel, clusterUid],
    );
    return row ? toCard(channel, row) : undefined;
  }

  /** The card's message is at `ts` in `channel`: which cluster is it? (actions carry only ts) */
  async byTs(channel: string, ts: string): Promise<Card | undefined> {
    const row = await this.db.get<Row>(
      `SELECT ${CARD_COLUMNS} FROM notify_cards WHERE channel = ? AND ts = ?`,
      [channel, ts],
    );
    return row ? toCard(channel, row) : undefined;
  }

  /** Every card of a channel (the console finds one by its cluster's name). */
  async inChannel(channel: string): Promise<Card[]> {
    const rows = await this.db.all<Row>(
      `SELECT ${CARD_COLUMNS} FROM notify_cards WHERE channel = ? ORDER BY cluster_uid`,
      [channel],
    );
    return rows.map((row) => toCard(channel, row));
  }

  /** A payload left out keeps the one stored (a launch card adopted keeps no payload). */
  async put(card: Card, at: string): Promise<void> {
    await this.db.run(
      `INSERT INTO notify_cards (channel, cluster_uid, ts, thread_ts, updated_at, owner, payload)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (channel, cluster_uid) DO UPDATE SET ts = excluded.ts,
         thread_ts = excluded.thread_ts, updated_at = excluded.updated_at, owner = excluded.owner,
         payload = COALESCE(excluded.payload, notify_cards.payload)`,
      [
        card.channel,
        card.clusterUid,
        card.ts,
        card.threadTs ?? null,
        at,
        card.owner ?? null,
        card.payload ? JSON.stringify(card.payload) : null,
      ],
    );
  }

  /** What the card shows after an update in place. */
  async setPayload(channel: string, clusterUid: string, payload: CardPayload): Promise<void> {
    await this.db.run("UPDATE notify_cards SET payload = ? WHERE channel = ? AND cluster_uid = ?", [
      JSON.stringify(payload),
      channel,
      clusterUid,
    ]);
  }

  async remove(channel: string, clusterUid: string): Promise<void> {
    await this.db.run("DELETE FROM notify_cards WHERE channel = ? AND cluster_uid = ?", [
      channel,
      clusterUid,
    ]);
  }

  async count(): Promise<number> {
    const row = await this.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM notify_cards");
    return Number(row!.n);
  }
}
