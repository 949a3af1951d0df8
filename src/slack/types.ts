import type { App, RespondFn, webApi } from "@slack/bolt";
import type { Assistant } from "../assistant/ask.ts";
import type { ChangeBoard } from "../changes/board.ts";
import type { ChangeFollower } from "../changes/follow.ts";
import type { ProxyConfig, SlackConfig } from "../config.ts";
import type { HttpRoute } from "../http/routes.ts";
import type { Logger } from "../log.ts";
import type { SqlExecutor } from "../store/sql.ts";
import type {
  CommandContext,
  CommandDeps,
  ModalReply,
  Reply,
  Requester,
} from "../verb-kit/types.ts";
import type { HomeDeps } from "./home-input.ts";
import type { LaunchRuntime } from "./launch-runtime.ts";

export type WebClient = webApi.WebClient;

/** Opens the modal a command asked for (by default the launch modal). */
export type ModalHandler = (
  reply: ModalReply,
  ctx: {
    triggerId: string;
    requester: Requester;
    client: WebClient;
    /** answers in the channel, e.g. to say the modal could not open */
    respond?: RespondFn;
    logger: Logger;
  },
) => Promise<void>;

/** Hooks the command delivery calls back into. */
export interface SlackHooks {
  onModal?: ModalHandler;
}

export type Dispatch = (text: string, ctx: CommandContext) => Promise<Reply>;

/** How the bot dealt with an Events API delivery of a conversation (mention, DM, link). */
export type ConversationOutcome =
  /** answered in the conversation, or its links unfurled */
  | "answered"
  /** another delivery of the same event (a retry, another replica) claimed it first */
  | "duplicate"
  /** not for the bot to answer: a bot's or its own message, an edit, a link it will not unfurl */
  | "ignored";

export interface SlackAppDeps {
  slack: SlackConfig;
  /** HTTPS_PROXY and friends: Socket Mode's WebSocket (and its apps.connections.open) through it */
  proxy?: ProxyConfig;
  commandDeps: CommandDeps;
  logger: Logger;
  /** served on the same port: /healthz, /readyz, /metrics (exact paths) */
  customRoutes?: readonly HttpRoute[];
  /** wraps the app before listeners run (e.g. ack timing); not for listeners */
  instrument?: (app: App) => void;
  /** the App Home's data sources; without them the home tab is not published */
  home?: HomeDeps;
  /** replaces the launch modal opener (tests); default: open the launch modal */
  onModal?: ModalHandler;
  /** how long a launch-form look-up may take before it answers "Palette is slow"; default 2.5 s */
  optionsBudgetMs?: number;
  /** each mention, DM or shared link, once dealt with (metrics, tests) */
  onConversation?: (
    event: "app_mention" | "message.im" | "link_shared",
    outcome: ConversationOutcome,
  ) => void;
  /** every Web API call the app makes, by method and outcome (metrics) */
  onSlackCall?: (method: string, outcome: string) => void;
  /** commands answered at once (a burst beyond waits its turn, acks stay fast); default 8 */
  maxConcurrentCommands?: number;
  /** the command dispatcher; default src/registry/dispatch.ts (tests may swap it) */
  dispatch?: Dispatch;
  /**
   * the grounded assistant (ASSISTANT_PROVIDER): mentions and DMs that are not a command, Slack's
   * assistant view, 👍/👎. Absent: none of these exist and no model is asked anything
   */
  assistant?: Assistant;
  /** waits between auth.test attempts at start while Slack is down; tests shorten them */
  startRetryDelaysMs?: readonly number[];
  /** waits between auth.test attempts at start while Slack refuses the token; tests shorten them */
  startAuthRetryDelaysMs?: readonly number[];
  /** the notification sender's wake: an Unsnooze or Unmute queued what a hold kept back */
  wakeSender?: () => void;
  /**
   * the leader lease's fence for the launch tracker's own rounds (src/app/leadership.ts); a
   * launch card a command posts needs none
   */
  launchFence?: (tx: SqlExecutor) => Promise<void>;
  /**
   * how the change follower's rounds are run (src/changes/follow.ts); default every 10 s. Tests
   * pass one that never fires and call `edge.changeFollower.tick()` themselves
   */
  changeSchedule?: (task: () => Promise<void>) => { stop(): void };
}

/** What every listener of the edge works with. */
export interface SlackEdge extends SlackAppDeps {
  hooks: SlackHooks;
  dispatch: Dispatch;
  launch: LaunchRuntime;
  /** day-2 changes: their cards, and the follower that takes each to its end */
  changeBoard: ChangeBoard;
  changeFollower: ChangeFollower;
  /** runs a change's slow part after the ack: tracked for shutdown, failures logged */
  changeWork(work: () => Promise<void>): Promise<void>;
  /**
   * works out an assistant's answer in the assistant's room: at most ASSISTANT_MAX_CONCURRENT at
   * once beside (not in) the commands' slots, after the acks of a burst (the answer gate), tracked
   * for shutdown to drain; never throws
   */
  assistantWork<T>(work: () => Promise<T>): Promise<T>;
  /**
   * runs `text` for the requester and delivers the reply; never throws. With `handOff`, a reply it
   * takes (returns the work that answers instead) is not delivered: that work answers the message
   * another way, run after the command's slot is given back
   */
  runCommand(
    text: string,
    target: CommandTarget,
    handOff?: (reply: Reply) => (() => Promise<void>) | undefined,
  ): Promise<void>;
}

/** Who asked, and the ways back to them. */
export interface CommandTarget {
  requester: Requester;
  client: WebClient;
  /** response_url of the command or button; absent for App Home buttons */
  respond?: RespondFn;
  triggerId?: string;
  /**
   * A conversation to answer in (a mention's thread, a DM with the bot): the reply is posted
   * there for everyone in it, whatever its visibility, as a mention is public
   */
  conversation?: { channel: string; threadTs?: string };
}
