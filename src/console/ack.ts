import { acknowledgeCard } from "../notify/oncall/acknowledge.ts";
import { cardStatus } from "../notify/oncall/card-status.ts";
import { type Card, CardStore } from "../store/cards.ts";
import type { CommandContext } from "../verb-kit/types.ts";
import { ackAlreadyTaken, ackRefused, ackThreadLine, ackUnknownCard } from "../views/card-ack.ts";
import { notificationCard, type RenderedMessage } from "../views/notification.ts";
import { createConsolePoster } from "./notifications.ts";
import { renderBlocks } from "./render.ts";

/**
 * `ack <cluster>` at the console: the card's Acknowledge button, for a terminal. It acknowledges
 * the cluster's card in the console's own notification channel (`npm run demo` subscribes it),
 * through the same use case as Slack, and prints what Slack would show: the card edited in place
 * and the line added to its thread.
 */

/** The cluster named after `ack`, "" when none was given; undefined when the line is not `ack`. */
export function consoleAckArgument(text: string): string | undefined {
  const match = /^ack(?:\s+(.*))?$/i.exec(text.trim());
  return match ? (match[1] ?? "").trim() : undefined;
}

export async function runConsoleAck(
  argument: string,
  ctx: CommandContext,
  out: (text: string) => void,
): Promise<void> {
  const print = (message: RenderedMessage) => out(`${renderBlocks(message.blocks)}\n\n`);
  if (!argument) {
    out("Usage: ack <cluster>  (name or UID of a cluster whose card this console has shown)\n\n");
    return;
  }
  const channel = ctx.requester.channelId;
  const found = findCard(await new CardStore(ctx.db).inChannel(channel), argument);
  if (found.length !== 1) {
    out(
      found.length === 0
        ? `No notification card for ${argument} in this console; \`ack\` takes a cluster whose card it has shown.\n\n`
        : `${found.length} cards are named ${argument}; give its UID: ${found.map((card) => card.clusterUid).join(", ")}\n\n`,
    );
    return;
  }
  const decision = await acknowledgeCard(ctx, {
    channel,
    userId: ctx.requester.userId,
    clusterUid: found[0]!.clusterUid,
  });
  switch (decision.kind) {
    case "refused":
      print(ackRefused(decision.hint));
      return;
    case "already":
      print(ackAlreadyTaken(decision.ack, ctx.requester.userId));
      return;
    case "unknown-card":
      print(ackUnknownCard());
      return;
    case "acknowledged":
      break;
  }
  const { card } = decision;
  const poster = createConsolePoster(out);
  if (card.payload) {
    const status = await cardStatus(ctx.db, channel, card.clusterUid, ctx.clock.now());
    const view = notificationCard(card.payload, { consoleUrl: ctx.consoleUrl }, status);
    await poster.update({ channel, ts: card.ts, ...view });
  }
  await poster.postMessage({ channel, thread_ts: card.ts, ...ackThreadLine(decision.ack) });
  out("\n");
}

/** By UID, else by name (any case); a launch card is not the notification pipeline's to ack. */
function findCard(cards: readonly Card[], wanted: string): Card[] {
  const mine = cards.filter((card) => !card.owner);
  const byUid = mine.filter((card) => card.clusterUid === wanted);
  if (byUid.length > 0) return byUid;
  const name = wanted.toLowerCase();
  return mine.filter((card) => card.payload?.cluster.name.toLowerCase() === name);
}
