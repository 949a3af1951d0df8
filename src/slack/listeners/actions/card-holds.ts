import type { App, RespondFn } from "@slack/bolt";
import { z } from "zod";
import {
  cardTarget,
  endHoldNow,
  type HoldTarget,
  holdRefusal,
  snoozeCluster,
} from "../../../commands/holds.ts";
import { CARD_ACTIONS, type HoldKind, SNOOZE_CHOICES } from "../../../model/notification.ts";
import type { CommandContext, MessageReply } from "../../../verb-kit/types.ts";
import { muteModal } from "../../../views/mute-modal.ts";
import { deliverReply, notice } from "../../deliver.ts";
import { encodeMuteMetadata } from "../../mute-form.ts";
import { describeSlackError } from "../../slack-errors.ts";
import type { SlackEdge, WebClient } from "../../types.ts";
import { userTimeZone } from "../../user-time-zone.ts";

/**
 * The card's Snooze, Unsnooze, Mute cluster… and Unmute. Each acknowledges first (Slack wants
 * an answer within 3 s), checks the request, and hands over to the use cases in
 * src/commands/holds.ts, which store, audit, edit the card and say what was done.
 */

const cardClick = z.object({
  user: z.object({ id: z.string().min(1), team_id: z.string().optional() }),
  trigger_id: z.string().optional(),
  team: z.object({ id: z.string() }).nullish(),
  channel: z.object({ id: z.string().min(1) }).optional(),
  container: z.object({ channel_id: z.string().optional() }).partial().optional(),
  actions: z
    .array(
      z.object({
        action_id: z.string(),
        value: z.string().optional(),
        // a static select carries its choice here, not in `value`
        selected_option: z.object({ value: z.string() }).nullish(),
      }),
    )
    .min(1),
});

/** What the card's elements carry (src/views/notification.ts `cardActionValue`). */
const cardValue = z.object({
  c: z.string().min(1).max(64),
  p: z.string().max(64).optional(),
  s: z.enum(SNOOZE_CHOICES).optional(),
});

interface Click {
  userId: string;
  teamId?: string;
  channel: string;
  triggerId?: string;
  value: z.infer<typeof cardValue>;
}

function readClick(body: unknown): Click | undefined {
  const parsed = cardClick.safeParse(body);
  if (!parsed.success) return undefined;
  const click = parsed.data;
  const action = click.actions[0]!;
  const channel = click.channel?.id ?? click.container?.channel_id;
  const raw = action.selected_option?.value ?? action.value;
  if (!channel || raw === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const checked = cardValue.safeParse(value);
  if (!checked.success) return undefined;
  return {
    userId: click.user.id,
    teamId: click.team?.id ?? click.user.team_id,
    channel,
    triggerId: click.trigger_id,
    value: checked.data,
  };
}

type Handler = (input: {
  click: Click;
  ctx: CommandContext;
  target: HoldTarget;
  client: WebClient;
  respond?: RespondFn;
}) => Promise<MessageReply | undefined>;

export function registerCardHoldActions(app: App, edge: SlackEdge): void {
  const on = (actionId: string, handler: Handler) => {
    app.action(actionId, async ({ ack, body, client, respond }) => {
      await ack();
      const click = readClick(body);
      if (!click) {
        edge.logger.warn({ actionId }, "card action without a readable cluster; ignored");
        return;
      }
      const ctx: CommandContext = {
        ...edge.commandDeps,
        requester: { userId: click.userId, channelId: click.channel, teamId: click.teamId },
      };
      const target = await cardTarget(ctx, click.channel, click.value.c, click.value.p);
      const answer = "response_url" in body ? respond : undefined;
      let reply: MessageReply | undefined;
      try {
        reply = await handler({ click, ctx, target, client, respond: answer });
      } catch (error) {
        edge.logger.error({ actionId, err: String(error) }, "card action failed");
        reply = notice(
          ":warning: That did not work on our side; the details are in the bot's log.",
        );
      }
      if (!reply) return;
      await deliverReply(
        reply,
        { requester: ctx.requester, client, respond: answer },
        { logger: edge.logger, audit: edge.commandDeps.audit, hooks: edge.hooks },
      );
    });
  };

  on(CARD_ACTIONS.snooze, async ({ click, ctx, target, client }) => {
    const choice = click.value.s;
    if (!choice) return notice("Pick how long to snooze from the list.");
    // only "until next weekday 09:00" depends on where the user is
    const zone =
      choice === "weekday"
        ? await userTimeZone(client, click.userId, edge.logger)
        : { name: "UTC", known: true };
    return snoozeCluster(ctx, target, choice, zone);
  });

  const end =
    (kind: HoldKind): Handler =>
    async ({ ctx, target }) =>
      endHoldNow(ctx, target, kind);
  on(CARD_ACTIONS.unsnooze, end("snooze"));
  on(CARD_ACTIONS.unmute, end("mute"));

  on(CARD_ACTIONS.mute, async ({ click, ctx, target, client }) => {
    // asked before the form opens, so nobody fills it in for nothing (the submit asks again)
    const refusal = await holdRefusal(ctx, "mute", target);
    if (refusal) return refusal;
    if (!click.triggerId)
      return notice("The mute form could not open from here; use `/palette mute`.");
    try {
      await client.views.open({
        trigger_id: click.triggerId,
        view: muteModal({
          clusterName: target.clusterName,
          metadata: encodeMuteMetadata({
            ch: click.channel,
            c: target.clusterUid,
            ...(target.projectUid ? { p: target.projectUid } : {}),
          }),
        }),
      });
      return undefined;
    } catch (error) {
      const failure = describeSlackError(error);
      edge.logger.warn({ slackError: failure.code }, "mute form did not open");
      return notice(`:warning: The mute form could not open. ${failure.message}`);
    }
  });
}
