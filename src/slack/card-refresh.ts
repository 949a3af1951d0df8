import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { cardStatus } from "../notify/oncall/card-status.ts";
import { CardStore } from "../store/cards.ts";
import type { SqlDb } from "../store/sql.ts";
import { notificationCard } from "../views/notification.ts";
import type { WebClient } from "./types.ts";

export interface CardRefreshDeps {
  db: SqlDb;
  clock: Clock;
  logger: Logger;
  /** PALETTE_CONSOLE_URL, for the card's "Open in Palette" button */
  consoleUrl?: string;
}

/**
 * Renders a notification card again from what it last showed plus its on-call status, and edits
 * it in place: what an action (ack, snooze, mute…) does right after it is stored. False when the
 * bot has no card or no payload for it (a card from before this feature: the next change fixes
 * it) or Slack refuses the edit; the action itself stands either way.
 */
export async function refreshCard(
  client: Pick<WebClient, "chat">,
  deps: CardRefreshDeps,
  channel: string,
  clusterUid: string,
): Promise<boolean> {
  const card = await new CardStore(deps.db).get(channel, clusterUid);
  if (!card?.payload || card.owner) return false;
  const status = await cardStatus(deps.db, channel, clusterUid, deps.clock.now());
  const view = notificationCard(card.payload, { consoleUrl: deps.consoleUrl }, status);
  try {
    await client.chat.update({ channel, ts: card.ts, text: view.text, blocks: view.blocks });
    return true;
  } catch (error) {
    deps.logger.warn(
      { channel, ts: card.ts, code: (error as { data?: { error?: string } }).data?.error },
      "could not edit the notification card after an action",
    );
    return false;
  }
}
