import { type Clock, systemClock } from "../clock.ts";
import { CardStore } from "../store/cards.ts";
import type { Db } from "../store/db.ts";
import { SnapshotStore } from "../store/snapshots.ts";
import type { LaunchWatch } from "./model.ts";

export type { LaunchWatch } from "./model.ts";

/**
 * Follow a launched cluster (H6's launch flow calls this right after Palette answered 201).
 * The watch lives in SQLite, so whoever holds the `Db` can register it, with or without the
 * poller instance, and it survives a restart. From the next poll on, each change of the cluster
 * edits the card in `channel` (the message `ts`, when given, becomes that card) and adds a thread
 * line; the line that reports Running, a failed state or Deleted mentions `requester`, once.
 */
export function watchLaunch(db: Db, watch: LaunchWatch, clock: Clock = systemClock): void {
  const at = new Date(clock.now()).toISOString();
  const snapshots = new SnapshotStore(db);
  const cards = new CardStore(db);
  db.transaction(() => {
    snapshots.watchLaunch(watch, at);
    if (watch.ts) {
      cards.putIfAbsent({ channel: watch.channel, clusterUid: watch.clusterUid, ts: watch.ts }, at);
    }
  })();
}

/**
 * The launch flow keeps its own card for a launched cluster (src/launch/watch.ts) and edits it
 * itself. Registering it here keeps "one card per (channel, cluster)": a subscription in that
 * channel then adds its lines to that card's thread instead of posting a second card, and never
 * edits the launch card.
 */
export function adoptCard(
  db: Db,
  card: { channel: string; clusterUid: string; ts: string; owner?: string },
  clock: Clock = systemClock,
): void {
  new CardStore(db).put(
    {
      channel: card.channel,
      clusterUid: card.clusterUid,
      ts: card.ts,
      owner: card.owner ?? "launch",
    },
    new Date(clock.now()).toISOString(),
  );
}
