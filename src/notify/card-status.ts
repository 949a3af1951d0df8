import type { CardStatus } from "../model/notification.ts";
import { AckStore } from "../store/acks.ts";
import type { Db } from "../store/db.ts";
import { HoldStore } from "../store/holds.ts";

/**
 * What the card of `clusterUid` in `channel` says about on-call work: its acknowledgement, and
 * the snooze and mute still running at `nowMs` (one that has run out shows no more, even before
 * the pipeline has posted what happened meanwhile).
 */
export function cardStatus(db: Db, channel: string, clusterUid: string, nowMs: number): CardStatus {
  const holds = new HoldStore(db);
  const running = (kind: "snooze" | "mute") => {
    const hold = holds.get(channel, clusterUid, kind);
    return hold && hold.untilMs > nowMs ? hold : undefined;
  };
  return {
    ack: new AckStore(db).get(channel, clusterUid),
    snooze: running("snooze"),
    mute: running("mute"),
  };
}
