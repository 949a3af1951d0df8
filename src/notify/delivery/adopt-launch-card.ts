import { type Clock, systemClock } from "../../clock.ts";
import { CardStore } from "../../store/cards.ts";
import type { SqlExecutor } from "../../store/sql.ts";

/**
 * The launch flow keeps its own card for a launched cluster (src/launch/watch.ts) and edits it
 * itself. Registering it here keeps "one card per (channel, cluster)": a subscription in that
 * channel then adds its lines to that card's thread instead of posting a second card, and never
 * edits the launch card.
 */
export async function adoptCard(
  db: SqlExecutor,
  card: { channel: string; clusterUid: string; ts: string; owner?: string },
  clock: Clock = systemClock,
): Promise<void> {
  await new CardStore(db).put(
    {
      channel: card.channel,
      clusterUid: card.clusterUid,
      ts: card.ts,
      owner: card.owner ?? "launch",
    },
    new Date(clock.now()).toISOString(),
  );
}
