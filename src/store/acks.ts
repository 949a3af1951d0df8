import type { CardAck } from "../model/notification.ts";
import type { Db } from "./db.ts";

/** Who acknowledged a channel's card of a cluster, until the cluster is healthy again. */
export class AckStore {
  constructor(private readonly db: Db) {}

  get(channel: string, clusterUid: string): CardAck | undefined {
    const row = this.db
      .prepare("SELECT user_id, acked_at FROM notify_acks WHERE channel = ? AND cluster_uid = ?")
      .get(channel, clusterUid) as { user_id: string; acked_at: number } | undefined;
    return row ? { userId: row.user_id, at: row.acked_at } : undefined;
  }

  /** The first acknowledgement stands: a second click by someone else does not take it over. */
  put(channel: string, clusterUid: string, ack: CardAck): CardAck {
    this.db
      .prepare(
        `INSERT INTO notify_acks (channel, cluster_uid, user_id, acked_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (channel, cluster_uid) DO NOTHING`,
      )
      .run(channel, clusterUid, ack.userId, ack.at);
    return this.get(channel, clusterUid)!;
  }

  /** Cleared (on recovery); returns who had it, if anyone. */
  clear(channel: string, clusterUid: string): CardAck | undefined {
    const had = this.get(channel, clusterUid);
    if (had) {
      this.db
        .prepare("DELETE FROM notify_acks WHERE channel = ? AND cluster_uid = ?")
        .run(channel, clusterUid);
    }
    return had;
  }
}
