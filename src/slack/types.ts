import type { App, RespondFn, webApi } from "@slack/bolt";
import type {
  CommandContext,
  CommandDeps,
  ModalReply,
  Reply,
  Requester,
} from "../commands/types.ts";
import type { SlackConfig } from "../config.ts";
import type { HttpRoute } from "../http/routes.ts";
import type { Logger } from "../log.ts";

export type WebClient = webApi.WebClient;

/** Opens the modal a command asked for (src/slack/launch plugs one in). */
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

/** Late-bound hooks: listener groups given in `register` may fill them. */
export interface SlackHooks {
  onModal?: ModalHandler;
}

export type Dispatch = (text: string, ctx: CommandContext) => Promise<Reply>;

/** An extra listener group (launch, App Home): gets the app and the edge's dependencies. */
export type RegisterListeners = (app: App, edge: SlackEdge) => void;

export interface SlackAppDeps {
  slack: SlackConfig;
  commandDeps: CommandDeps;
  logger: Logger;
  /** served on the same port: /healthz, /readyz, /metrics (exact paths) */
  customRoutes?: readonly HttpRoute[];
  register?: RegisterListeners[];
  onModal?: ModalHandler;
  /** every Web API call the app makes, by method and outcome (metrics) */
  onSlackCall?: (method: string, outcome: string) => void;
  /** commands answered at once (a burst beyond waits its turn, acks stay fast); default 8 */
  maxConcurrentCommands?: number;
  /** the command dispatcher; default src/commands/dispatch.ts (tests may swap it) */
  dispatch?: Dispatch;
}

/** What every listener of the edge works with. */
export interface SlackEdge extends SlackAppDeps {
  hooks: SlackHooks;
  dispatch: Dispatch;
  /** runs `text` for the requester and delivers the reply; never throws */
  runCommand(text: string, target: CommandTarget): Promise<void>;
}

/** Who asked, and the ways back to them. */
export interface CommandTarget {
  requester: Requester;
  client: WebClient;
  /** response_url of the command or button; absent for App Home buttons */
  respond?: RespondFn;
  triggerId?: string;
}
