import type { App } from "@slack/bolt";
import { z } from "zod";
import type { Assistant } from "../../../assistant/ask.ts";
import { commandFromMessage } from "../../../conversation/message-text.ts";
import { planMessage } from "../../../conversation/plan.ts";
import { typedRunMissed } from "../../../conversation/typed-run.ts";
import { findVerb } from "../../../registry/dispatch.ts";
import { CardStore } from "../../../store/cards.ts";
import { EventClaimStore } from "../../../store/event-claims.ts";
import type { Reply } from "../../../verb-kit/types.ts";
import { answerInSlack } from "../../assistant-answer.ts";
import { deliverReply } from "../../deliver.ts";
import { describeSlackError } from "../../slack-errors.ts";
import type { ConversationOutcome, SlackEdge, WebClient } from "../../types.ts";

/** The reaction that says "seen, working on it" at once, before Palette is asked anything. */
export const SEEN_REACTION = "eyes";

/** A message someone wrote to the bot: a mention in a channel or thread, or a DM. */
export const messageToBot = z.object({
  user: z.string().min(1),
  text: z.string().max(40_000).default(""),
  ts: z.string().min(1),
  channel: z.string().min(1),
  thread_ts: z.string().optional(),
  team: z.string().optional(),
});
export type MessageToBot = z.infer<typeof messageToBot>;

/** present on what bots write, on edits and other replays: such messages are never answered */
const notFromAPerson = z
  .object({ bot_id: z.string(), subtype: z.string(), edited: z.unknown() })
  .partial()
  .refine((m) => m.bot_id !== undefined || m.subtype !== undefined || m.edited !== undefined);

const delivery = z.object({
  event_id: z.string().min(1),
  /** the workspace the app is installed in: a stream's recipient_team_id when the event has none */
  team_id: z.string().optional(),
  authorizations: z.array(z.object({ team_id: z.string().optional() })).optional(),
});

/**
 * Answers a message written to the bot: claimed once by its event_id across replicas (Slack
 * redelivers what it thinks went unanswered), marked seen with a reaction at once, then run as
 * a command and answered in the conversation: the mention's thread (a top-level mention starts
 * one), or the DM.
 */
interface MessageArgs {
  event: unknown;
  body: unknown;
  client: WebClient;
  botUserId: string | undefined;
  /** a DM (message.im), not a mention */
  direct: boolean;
  /** a message in Slack's assistant view: its status line and the thread's title */
  assistantView?: {
    setStatus(status: string): Promise<unknown>;
    setTitle(title: string): Promise<unknown>;
  };
}

export async function answerMessage(edge: SlackEdge, args: MessageArgs): Promise<void> {
  const outcome = await handleMessage(edge, args);
  edge.onConversation?.(args.direct ? "message.im" : "app_mention", outcome);
}

async function handleMessage(edge: SlackEdge, args: MessageArgs): Promise<ConversationOutcome> {
  // never the bot's own words, another bot's (no loops), an edit or a replay
  if (notFromAPerson.safeParse(args.event).success) return "ignored";
  const parsed = messageToBot.safeParse(args.event);
  const envelope = delivery.safeParse(args.body);
  if (!parsed.success || !envelope.success) {
    edge.logger.warn({ direct: args.direct }, "a message event of unexpected shape; ignored");
    return "ignored";
  }
  const message = parsed.data;
  if (message.user === args.botUserId) return "ignored";
  const { db, clock } = edge.commandDeps;
  const claims = new EventClaimStore(db, clock);
  if (!(await claims.claim(`event:${envelope.data.event_id}`))) {
    edge.logger.info({ direct: args.direct }, "a message event already answered; dropped");
    return "duplicate";
  }
  await args.client.reactions
    .add({ channel: message.channel, timestamp: message.ts, name: SEEN_REACTION })
    .catch((error: unknown) => {
      edge.logger.warn({ slackError: describeSlackError(error).code }, "could not react");
    });
  const plan = await planMessage(
    {
      text: message.text,
      botUserId: args.botUserId,
      channel: message.channel,
      threadTs: message.thread_ts,
      ts: message.ts,
      direct: args.direct,
    },
    {
      cards: new CardStore(db),
      claims,
      isVerb: (name) => findVerb(name) !== undefined,
      askable: edge.assistant !== undefined,
    },
  );
  const conversation = {
    channel: message.channel,
    // a DM answers in the DM itself; a mention in its thread, or starts one under itself
    threadTs: args.direct ? message.thread_ts : (message.thread_ts ?? message.ts),
  };
  // Slack wants recipient_team_id on a stream; an event without `team` (a DM, the assistant
  // view) still names the workspace in its authorization or envelope
  const teamId =
    message.team ?? envelope.data.authorizations?.[0]?.team_id ?? envelope.data.team_id;
  const target = {
    requester: { userId: message.user, channelId: message.channel, teamId },
    client: args.client,
    conversation,
  };
  if (plan.kind === "quiet") return "ignored";
  const assistant = edge.assistant;
  const ask = async (question: string, assistant: Assistant) => {
    const view = args.assistantView;
    // the thread's first question is its title; a follow-up does not overwrite it (one claim
    // per thread, shared by the replicas)
    if (view && (await claims.claim(`title:${message.channel}:${conversation.threadTs ?? "dm"}`))) {
      await view
        .setTitle(question.slice(0, 80))
        .catch((error: unknown) =>
          edge.logger.warn({ slackError: describeSlackError(error).code }, "title not set"),
        );
    }
    await answerInSlack(
      assistant,
      {
        text: question,
        requester: target.requester,
        client: args.client,
        channel: message.channel,
        threadTs: conversation.threadTs,
        surface: view ? "assistant_view" : args.direct ? "dm" : "mention",
        ...(view ? { setStatus: view.setStatus } : {}),
      },
      edge.logger,
      // in the assistant's room: ASSISTANT_MAX_CONCURRENT, the answer gate, the shutdown drain
      edge.assistantWork,
    );
  };
  if (plan.kind === "ask") {
    if (!assistant) return "ignored";
    await ask(plan.question, assistant);
    return "answered";
  }
  if (plan.kind === "help") {
    await deliverReply(plan.reply, target, {
      logger: edge.logger,
      audit: edge.commandDeps.audit,
      hooks: edge.hooks,
    });
    return "answered";
  }
  // with the assistant on, words that start with a verb but do not run as one ("why is web-prod
  // unhealthy?": usage, or no cluster named `is`) are a question for it; a verb that runs stays
  // a verb, answered as typed
  const handOff = assistant
    ? (reply: Reply) =>
        typedRunMissed(reply)
          ? () => ask(commandFromMessage(message.text, args.botUserId), assistant)
          : undefined
    : undefined;
  await edge.runCommand(plan.text, target, handOff);
  return "answered";
}

/** `@Palette <command>` in a channel or a thread. */
export function registerAppMention(app: App, edge: SlackEdge): void {
  app.event("app_mention", async ({ event, body, client, context }) => {
    await answerMessage(edge, { event, body, client, botUserId: context.botUserId, direct: false });
  });
}

/** A DM to the bot: a command without the `/palette` prefix, answered in the DM. */
export function registerDirectMessage(app: App, edge: SlackEdge): void {
  app.event("message", async ({ event, body, client, context }) => {
    if ((event as { channel_type?: string }).channel_type !== "im") return;
    await answerMessage(edge, { event, body, client, botUserId: context.botUserId, direct: true });
  });
}
