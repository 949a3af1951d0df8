import type { ClusterSnap } from "../model/cluster.ts";
import type { CardStore } from "../store/cards.ts";
import type { EventClaimStore } from "../store/event-claims.ts";
import { parseCommand } from "../verb-kit/parse.ts";
import { messageReply } from "../verb-kit/reply.ts";
import type { MessageReply } from "../verb-kit/types.ts";
import { commandFromMessage } from "./message-text.ts";
import { withThreadCluster } from "./thread-cluster.ts";
import { readsAsSentence } from "./typed-run.ts";

/** What to do with a message someone wrote to the bot (a mention, a DM). */
export type MessagePlan =
  /** run this `/palette` text and answer in the conversation */
  | { kind: "run"; text: string }
  /** answer with the short help: the bot did not understand */
  | { kind: "help"; reply: MessageReply }
  /** not understood again in a thread that already has the short help: say nothing more */
  | { kind: "quiet" }
  /** not a command, and the assistant is on (ASSISTANT_PROVIDER): a question for it */
  | { kind: "ask"; question: string };

export interface MessageInput {
  text: string;
  /** the bot's own user ID (auth.test), whose mentions are taken out of the text */
  botUserId: string | undefined;
  channel: string;
  /** the thread the message is in; undefined for a top-level message */
  threadTs: string | undefined;
  /** the message's own ts: the thread a top-level mention starts */
  ts: string;
  /** a DM: every message is for the bot, and the help is given each time it is needed */
  direct: boolean;
}

export interface PlanDeps {
  cards: CardStore;
  claims: EventClaimStore;
  /** is this a verb the bot knows (aliases too)? The verb registry sits above this use case. */
  isVerb(name: string): boolean;
  /** the assistant is on: words that are not a command are a question for it */
  askable?: boolean;
}

/**
 * The command in a message. In a notification card's thread the card's cluster fills in the name
 * (`nodes`, `mute 1d reason`). A message that names no command gets the short help once per
 * thread (the claim is shared by replicas), so a chatty thread is not answered again and again.
 */
export async function planMessage(input: MessageInput, deps: PlanDeps): Promise<MessagePlan> {
  let text = commandFromMessage(input.text, input.botUserId);
  const { command, problems } = parseCommand(text);
  if (text === "" || !deps.isVerb(command.verb)) {
    // a verb stays a verb: only what the parser does not know goes to the assistant
    if (deps.askable && text !== "") return { kind: "ask", question: text };
    if (input.direct) return { kind: "help", reply: shortHelp(true) };
    const thread = input.threadTs ?? input.ts;
    const first = await deps.claims.claim(`help:${input.channel}:${thread}`);
    return first ? { kind: "help", reply: shortHelp(false) } : { kind: "quiet" };
  }
  // a sentence that starts with a verb word is a question for the assistant, when it is on
  // ("why isn't web-prod healthy": an apostrophe the parser reads as an unclosed quote)
  if (deps.askable && (problems.length > 0 || readsAsSentence(command))) {
    return { kind: "ask", question: text };
  }
  if (input.threadTs !== undefined && !input.direct) {
    const cluster = await threadCluster(input.channel, input.threadTs, deps.cards);
    if (cluster) text = withThreadCluster(text, cluster);
  }
  return { kind: "run", text };
}

async function threadCluster(
  channel: string,
  threadTs: string,
  cards: CardStore,
): Promise<Pick<ClusterSnap, "uid" | "name" | "project"> | undefined> {
  const card = await cards.byTs(channel, threadTs);
  if (!card) return undefined;
  return card.payload?.cluster ?? { uid: card.clusterUid, name: card.clusterUid, project: "" };
}

export function shortHelp(direct: boolean): MessageReply {
  const how = direct
    ? "Write me a command as you would after `/palette`"
    : "Mention me with a command, as you would write it after `/palette`";
  return messageReply(
    {
      screen: "notice",
      data: {
        mrkdwn: `:wave: I did not catch a command there. ${how}: \`clusters tag:prod\`, \`cluster web-prod\`, \`nodes web-prod\`, \`alerts\`.`,
        hint: direct
          ? "`help` lists every command."
          : "In the thread of one of my cluster cards, name no cluster: `nodes`, `workloads`, `mute 1d reason`. `help` lists every command.",
      },
    },
    "I did not catch a command there; try `help`.",
    "in_channel",
  );
}
