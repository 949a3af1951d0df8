import type { CardStatus } from "../../model/notification.ts";
import { AckStore } from "../../store/acks.ts";
import { HoldStore } from "../../store/holds.ts";
import { RadarStore } from "../../store/radar.ts";
import type { SqlExecutor } from "../../store/sql.ts";

/**
 * What the card of `clusterUid` in `channel` says about on-call work: its acknowledgement, and
 * the snooze and mute still running at `nowMs` (one that has run out shows no more, even before
 * the pipeline has posted what happened meanwhile), and whether a repave of it waits for approval.
 */
export async function cardStatus(
  db: SqlExecutor,
  channel: string,
  clusterUid: string,
  nowMs: number,
): Promise<CardStatus> {
  const holds = new HoldStore(db);
  const running = async (kind: "snooze" | "mute") => {
    const hold = await holds.get(channel, clusterUid, kind);
    return hold && hold.untilMs > nowMs ? hold : undefined;
  };
  // the radar's last read of the fleet's pending repaves (src/radar/): a row, not a Palette call
  const repavePending = (await new RadarStore(db).repaveSince([clusterUid])).has(clusterUid);
  return {
    ack: await new AckStore(db).get(channel, clusterUid),
    snooze: await running("snooze"),
    mute: await running("mute"),
    ...(repavePending ? { repavePending } : {}),
  };
}
