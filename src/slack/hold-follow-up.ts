import type { HoldChange } from "../model/notification.ts";
import { type CardRefreshDeps, refreshCard } from "./card-refresh.ts";
import type { WebClient } from "./types.ts";

/**
 * What the Slack edge does after a snooze or mute began or ended (`CommandDeps.onHoldChange`):
 * an end summary in the outbox goes out now (the sender is woken; its card row edits the card
 * itself, and a redraw beside it could land after it and show the older payload); otherwise the
 * card is redrawn in place with its new status.
 */
export function holdFollowUp(
  client: Pick<WebClient, "chat">,
  deps: CardRefreshDeps,
  wakeSender?: () => void,
): (change: HoldChange) => Promise<void> {
  return async (change) => {
    if (change.queued) {
      wakeSender?.();
      return;
    }
    await refreshCard(client, deps, change.channel, change.clusterUid);
  };
}
