import type { App } from "@slack/bolt";
import { z } from "zod";
import { CARD_ACTIONS } from "../../../model/notification.ts";
import { acknowledgeCard } from "../../../notify/oncall/acknowledge.ts";
import {
  ackAlreadyTaken,
  ackRefused,
  ackThreadLine,
  ackUnknownCard,
} from "../../../views/card-ack.ts";
import type { RenderedMessage } from "../../../views/notification.ts";
import { refreshCard } from "../../card-refresh.ts";
import { describeSlackError } from "../../slack-errors.ts";
import type { SlackEdge } from "../../types.ts";

/** The parts of Slack's block_actions payload a card click needs (a message in a channel). */
const cardClick = z.object({
  user: z.object({ id: z.string().min(1) }),
  channel: z.object({ id: z.string().min(1) }).optional(),
  container: z
    .object({ channel_id: z.string().min(1), message_ts: z.string().min(1) })
    .partial()
    .optional(),
  message: z.object({ ts: z.string().min(1) }).optional(),
  response_url: z.string().optional(),
  actions: z.array(z.object({ value: z.string().optional() })).min(1),
});

/** The button's value: which cluster (src/views/notification.ts `cardActionValue`). */
const cardValue = z.object({ c: z.string().min(1).max(128), p: z.string().optional() });

function clusterOf(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    const parsed = cardValue.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data.c : undefined;
  } catch {
    return undefined;
  }
}

/**
 * "Acknowledge" on a notification card. Acked at once; the decision is the use case's
 * (src/notify/oncall/acknowledge.ts). When it stands, the card is edited in place to say who has it and
 * its thread gets a line; any other answer is private to whoever clicked.
 */
export function registerAcknowledgeAction(app: App, edge: SlackEdge): void {
  app.action(CARD_ACTIONS.ack, async ({ ack, body, client, respond }) => {
    await ack();
    const parsed = cardClick.safeParse(body);
    const click = parsed.success ? parsed.data : undefined;
    const channel = click?.channel?.id ?? click?.container?.channel_id;
    if (!click || !channel) {
      edge.logger.warn("Acknowledge clicked outside a channel message; ignored");
      return;
    }
    const userId = click.user.id;
    const tell = async (message: RenderedMessage) => {
      try {
        if (click.response_url) {
          await respond({ response_type: "ephemeral", replace_original: false, ...message });
        } else {
          await client.chat.postEphemeral({ channel, user: userId, ...message });
        }
      } catch (error) {
        edge.logger.warn(
          { channel, code: describeSlackError(error).code },
          "could not answer an Acknowledge click",
        );
      }
    };

    const deps = edge.commandDeps;
    const decision = await acknowledgeCard(deps, {
      channel,
      userId,
      messageTs: click.container?.message_ts ?? click.message?.ts,
      clusterUid: clusterOf(click.actions[0]?.value),
    });
    switch (decision.kind) {
      case "refused":
        await tell(ackRefused(decision.hint));
        return;
      case "already":
        await tell(ackAlreadyTaken(decision.ack, userId));
        return;
      case "unknown-card":
        await tell(ackUnknownCard());
        return;
      case "acknowledged":
        break;
    }
    await refreshCard(
      client,
      { db: deps.db, clock: deps.clock, logger: edge.logger, consoleUrl: deps.consoleUrl },
      channel,
      decision.clusterUid,
    );
    try {
      await client.chat.postMessage({
        channel,
        thread_ts: decision.card.ts,
        ...ackThreadLine(decision.ack),
      });
    } catch (error) {
      // the acknowledgement stands (the card says so); only its thread line is missing
      edge.logger.warn(
        { channel, code: describeSlackError(error).code },
        "could not add the acknowledgement to the card's thread",
      );
    }
  });
}
