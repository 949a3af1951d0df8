import type { CardAck } from "../model/notification.ts";
import type { SqlExecutor } from "./sql.ts";

/** Who acknowledged a channel's card of a cluster, until the cluster is healthy again. */
export class AckStore {
  constructor(private readonly db: SqlExecutor) {}

  async get(channel: string, clusterUid: string): Promise<CardAck | undefined> {
    const row = await this.db.get<{ user_id: string; acked_at: number }>(
      "SELECT user_id, acked_at FROM notify_acks WHERE channel = ? AND cluster_uid = ?",
      [channel, clusterUid],
    );
    return row ? { userId: row.user_id, at: row.acked_at } : undefined;
  }

  /** The first acknowledgement stands: a second click by someone else does not take it over. */
  async put(channel: string, clusterUid: string, ack: CardAck): Promise<CardAck> {
    await this.db.run(
      `INSERT INTO notify_acks (channel, cluster_uid, user_id, acked_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (channel, cluster_uid) DO NOTHING`,
      [channel, clusterUid, ack.userId, ack.at],
    );
    return (await this.get(channel, clusterUid))!;
  }

  /** Cleared (on recovery); returns who had it, if anyone. */
  async clear(channel: string, clusterUid: string): Promise<CardAck | undefined> {
    const had = await this.get(channel, clusterUid);
    if (had) {
      await this.db.run("DELETE FROM notify_acks WHERE channel = ? AND cluster_uid = ?", [
        channel,
        clusterUid,
      ]);
    }
    return had;
  }
}
