import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { App, HTTPReceiver, type Receiver, SocketModeReceiver, webApi } from "@slack/bolt";
import { ChangeFollower } from "../changes/follow.ts";
import type { SlackConfig } from "../config.ts";
import { type RunningHttpServer, startHttpServer } from "../http/server.ts";
import { intervalScheduler } from "../launch/watch.ts";
import type { Logger } from "../log.ts";
import { createPostOnce } from "../notify/delivery/post-once.ts";
import { proxyDispatcher, proxyInUse } from "../proxy.ts";
import { dispatch as defaultDispatch } from "../registry/dispatch.ts";
import { ChangePlanStore } from "../store/change-plans.ts";
import { section } from "../views/blocks.ts";
import { changeModal } from "../views/change.ts";
import { loginModal } from "../views/login-modal.ts";
import { createAnswerGate, watchRequests } from "./answer-gate.ts";
import { boltLogger } from "./bolt-logger.ts";
import { countingFetch, type SlackCallObserver } from "./call-counter.ts";
import { slackChangeBoard } from "./change-board.ts";
import { holdFollowUp } from "./hold-follow-up.ts";
import { InFlight } from "./in-flight.ts";
import { createLaunchRuntime } from "./launch-runtime.ts";
import { registerListeners } from "./listeners/index.ts";
import { createSlackPoster } from "./notify-poster.ts";
import { openLaunchModal } from "./open-launch-modal.ts";
import { notRetryingPosts, postsFailMarked } from "./posts-not-retried.ts";
import { assistantRoom, createRunCommand } from "./run-command.ts";
import { describeSlackError } from "./slack-errors.ts";
import type { SlackAppDeps, SlackEdge, SlackHooks } from "./types.ts";
import { userTimeZone } from "./user-time-zone.ts";

export type { SlackAppDeps, SlackEdge } from "./types.ts";

/** how long a stop waits for answers still being worked out */
const COMMAND_DRAIN_CAP_MS = 5_000;
/** how often the change follower reads the state of changes Palette accepted */
const CHANGE_FOLLOW_EVERY_MS = 10_000;

/** Where Slack sends slash commands, interactivity and events in HTTP mode. */
export const SLACK_EVENTS_PATH = "/slack/events";

/**
 * Options for every WebClient that talks to Slack: the configured base URL (GovSlack, the fake
 * Slack in tests), few quick retries (a user is waiting) but none of chat.postMessage (a post
 * Slack took but answered late would show twice: posts-not-retried.ts), and rate limits surfaced at once as
 * errors so the user hears "try again in N s" instead of a silent wait. What must reach a person
 * anyway (a change's card and its end) is kept in the store and sent again after the
 * Retry-After the error carries (src/changes/card-delivery.ts), not dropped.
 */
export function slackClientOptions(
  apiUrl: string,
  onCall?: SlackCallObserver,
): webApi.WebClientOptions {
  const base = globalThis.fetch as unknown as NonNullable<webApi.WebClientOptions["fetch"]>;
  return {
    slackApiUrl: apiUrl,
    // a chat.postMessage is never sent again by the client: Slack may have taken the first
    fetch: postsFailMarked(apiUrl, onCall ? countingFetch(apiUrl, onCall) : base),
    retryConfig: notRetryingPosts({ retries: 2, factor: 2, minTimeout: 250, maxTimeout: 2_000 }),
    rejectRateLimitedCalls: true,
    timeout: 10_000,
  };
}

/**
 * A WebClient for code outside the listeners that needs Slack before the app exists (the access
 * policy's user-group lookups, the App Home sources): same base URL, same logging, same retry
 * policy. The notification poster builds its own, without retries (notify-poster.ts).
 */
export function createSlackWebClient(
  slack: SlackConfig,
  logger: Logger,
  onCall?: SlackCallObserver,
): webApi.WebClient {
  return new webApi.WebClient(slack.botToken.reveal(), {
    ...slackClientOptions(slack.apiUrl, onCall),
    logger: boltLogger(logger),
  });
}

export interface RunningSlackApp {
  app: App;
  edge: SlackEdge;
  /** HTTP mode: the port Slack requests and custom routes are served on (0 = any free port) */
  start(port: number): Promise<{ port: number | undefined }>;
  /** stops receiving, then waits (up to 5 s) for commands still being answered */
  stop(): Promise<void>;
}

/** Waits between auth.test attempts at start when Slack is down or busy: about a minute in all. */
const START_RETRY_DELAYS_MS = [1_000, 2_000, 4_000, 8_000, 15_000, 30_000];

/**
 * Waits between auth.test attempts at start while Slack refuses the token (`invalid_auth`): about
 * 15 s in all (the long chaos run refuses for 12 s). Slack has refused good tokens for moments during its own incidents, and a bot
 * restarted into one must not exit on it (a container runtime backs off each crash longer); a
 * refusal that lasts through these is the token's, and start-up fails saying so.
 */
const AUTH_REFUSAL_DELAYS_MS = [1_000, 2_000, 4_000, 8_000];

/** Slack answering 5xx, rate-limiting or unreachable: worth waiting for. A bad token is not. */
function isPassingTrouble(code: string): boolean {
  return (
    /^http_5\d\d$/.test(code) ||
    ["network", "ratelimited", "internal_error", "fatal_error", "service_unavailable"].includes(
      code,
    )
  );
}

/**
 * Bolt's auth.test at start. A Slack outage during a deploy or a restart must not crash-loop the
 * bot (its poll would stop, and changes that come and go meanwhile would never be told), so
 * passing trouble is waited out, and a refused token is tried a few times more (`authDelaysMs`);
 * a refusal that persists, or any other, fails start-up with the reason.
 */
async function initWithRetries(
  app: App,
  logger: Logger,
  delaysMs: readonly number[],
  authDelaysMs: readonly number[],
): Promise<void> {
  let troubles = 0;
  let refusals = 0;
  for (;;) {
    try {
      await app.init();
      if (refusals > 0) logger.info({ refusals }, "Slack accepted the token after refusing it");
      return;
    } catch (error) {
      const code = describeSlackError(error).code;
      const refused = code === "invalid_auth";
      const delay = refused
        ? authDelaysMs[refusals++]
        : isPassingTrouble(code)
          ? delaysMs[troubles++]
          : undefined;
      if (delay === undefined) {
        const lasted = refused
          ? ` on ${refusals} tries over ${Math.round(authDelaysMs.reduce((sum, ms) => sum + ms, 0) / 1000)} s`
          : "";
        throw new Error(
          `SLACK_BOT_TOKEN: Slack's auth.test failed (${code})${lasted}; check the token and SLACK_API_URL`,
        );
      }
      logger.warn({ code, retryInMs: delay }, "Slack's auth.test failed at start; trying again");
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

export function createSlackApp(deps: SlackAppDeps): RunningSlackApp {
  const { slack } = deps;
  const logger = deps.logger.child({ component: "slack" });
  const adapter = boltLogger(deps.logger);
  const socketMode = slack.appToken !== undefined;
  const customRoutes = deps.customRoutes ?? [];

  let receiver: Receiver;
  if (socketMode) {
    receiver = new SocketModeReceiver({
      appToken: slack.appToken!.reveal(),
      // the WebSocket builds its own connection, not through Node's default dispatcher
      ...(proxyInUse(deps.proxy) ? { dispatcher: proxyDispatcher(deps.proxy) } : {}),
      logger: adapter,
      logLevel: adapter.getLevel(),
      // the Socket Mode client opens its connection through apps.connections.open on this base
      installerOptions: { clientOptions: { slackApiUrl: slack.apiUrl } },
    });
  } else {
    if (!slack.signingSecret) {
      throw new Error("SLACK_SIGNING_SECRET: required in HTTP mode (or set SLACK_APP_TOKEN)");
    }
    receiver = new HTTPReceiver({
      signingSecret: slack.signingSecret.reveal(),
      endpoints: SLACK_EVENTS_PATH,
      customRoutes: [...customRoutes],
      logger: adapter,
      logLevel: adapter.getLevel(),
      signatureVerification: true,
      // ack() answers Slack at once; the listener goes on with the slow part afterwards
      processBeforeResponse: false,
    });
  }

  const app = new App({
    token: slack.botToken.reveal(),
    receiver,
    logger: adapter,
    logLevel: adapter.getLevel(),
    clientOptions: slackClientOptions(slack.apiUrl, deps.onSlackCall),
    convoStore: false,
    // the conversation listeners drop the bot's own messages themselves, and report it
    // (src/slack/listeners/events/message-to-bot.ts): Bolt's ignoreSelf would drop them unseen
    ignoreSelf: false,
    // auth.test runs in start(), awaited, so a bad token fails start-up with a clear error
    deferInitialization: true,
  });

  // a snooze or mute from a card, the modal or `/palette mute` edits the card in place (or wakes
  // the sender for a queued end summary), unless the wiring brought its own follow-up
  const commandDeps = {
    ...deps.commandDeps,
    // times in answers (`why`) on the reader's wall clock, from their Slack profile
    readerTimeZone:
      deps.commandDeps.readerTimeZone ??
      (async (userId: string) => (await userTimeZone(app.client, userId, logger)).name),
    onHoldChange:
      deps.commandDeps.onHoldChange ??
      holdFollowUp(
        app.client,
        {
          db: deps.commandDeps.db,
          clock: deps.commandDeps.clock,
          logger,
          consoleUrl: deps.commandDeps.consoleUrl,
        },
        deps.wakeSender,
      ),
    announce:
      deps.commandDeps.announce ??
      (async (channel: string, line: { mrkdwn: string; text: string }) => {
        await app.client.chat.postMessage({
          channel,
          text: line.text,
          blocks: [section(line.mrkdwn)],
        });
      }),
  };
  deps.instrument?.(app);
  const answerGate = createAnswerGate();
  watchRequests(app, answerGate);
  const launch = createLaunchRuntime(app.client, deps.commandDeps, deps.launchFence);
  const hooks: SlackHooks = {
    // `/palette launch` answers with a ModalReply; the edge turns it into this call
    onModal:
      deps.onModal ??
      (async (reply, ctx) => {
        if (reply.modal === "change") {
          // the plan stays here; the modal carries its id (private_metadata holds 3,000 chars)
          const plans = new ChangePlanStore(deps.commandDeps.db, deps.commandDeps.clock);
          const planId = await plans.put({
            plan: reply.plan,
            channel: ctx.requester.channelId,
            requester: ctx.requester.userId,
          });
          await ctx.client.views.open({
            trigger_id: ctx.triggerId,
            view: changeModal({
              plan: reply.plan,
              planId,
              channel: ctx.requester.channelId,
              needsApproval: reply.needsApproval,
            }),
          });
          return;
        }
        if (reply.modal === "login") {
          await ctx.client.views.open({
            trigger_id: ctx.triggerId,
            view: loginModal({ consoleUrl: deps.commandDeps.consoleUrl }),
          });
          return;
        }
        await openLaunchModal(ctx.client, ctx.triggerId, {
          requester: ctx.requester,
          deps: deps.commandDeps,
        });
      }),
  };
  // commands' lazy parts still running, for stop() to wait on
  const inFlight = new InFlight();
  const dispatch = deps.dispatch ?? defaultDispatch;
  // change cards are posted once, without client retries (issue 37 item 2)
  const changeBoard = slackChangeBoard(
    app.client,
    createPostOnce({
      db: deps.commandDeps.db,
      slack: createSlackPoster({ token: slack.botToken, apiUrl: slack.apiUrl }),
      logger,
    }),
  );
  const changeFollower = new ChangeFollower({
    db: deps.commandDeps.db,
    palette: deps.commandDeps.palette,
    board: changeBoard,
    clock: deps.commandDeps.clock,
    logger,
    audit: deps.commandDeps.audit,
  });
  const changeSchedule = deps.changeSchedule ?? intervalScheduler(CHANGE_FOLLOW_EVERY_MS);
  let changeTimer: { stop(): void } | undefined;
  const edge: SlackEdge = {
    ...deps,
    commandDeps,
    hooks,
    dispatch,
    launch,
    changeBoard,
    changeFollower,
    changeWork: (work) =>
      inFlight.track(
        work().catch((error: unknown) => {
          logger.error(
            { err: error instanceof Error ? error.message : String(error) },
            "change failed",
          );
        }),
      ),
    assistantWork: assistantRoom({
      inFlight,
      answerGate,
      maxConcurrent: deps.assistant?.maxConcurrent ?? 4,
      logger,
    }),
    runCommand: createRunCommand({
      commandDeps,
      dispatch,
      hooks,
      logger,
      inFlight,
      maxConcurrent: deps.maxConcurrentCommands,
      answerGate,
    }),
  };
  registerListeners(app, edge);

  let routeServer: RunningHttpServer | undefined;
  let started = false;

  return {
    app,
    edge,
    async start(port) {
      await initWithRetries(
        app,
        logger,
        deps.startRetryDelaysMs ?? START_RETRY_DELAYS_MS,
        deps.startAuthRetryDelaysMs ?? AUTH_REFUSAL_DELAYS_MS,
      );
      if (socketMode) {
        await app.start();
        started = true;
        changeTimer ??= changeSchedule(() => changeFollower.tick());
        if (customRoutes.length === 0) return { port: undefined };
        const routes = await startHttpServer(port, customRoutes);
        routeServer = routes;
        logger.info({ port: routes.port }, "Slack Socket Mode connected; health routes listening");
        return { port: routes.port };
      }
      const server = (await app.start(port)) as Server;
      started = true;
      changeTimer ??= changeSchedule(() => changeFollower.tick());
      const actual = (server.address() as AddressInfo).port;
      logger.info({ port: actual, path: SLACK_EVENTS_PATH }, "Slack HTTP receiver listening");
      return { port: actual };
    },
    async stop() {
      changeTimer?.stop();
      changeTimer = undefined;
      if (started) {
        started = false;
        await app.stop().catch((error: unknown) => {
          logger.warn({ err: String(error) }, "Slack receiver did not stop cleanly");
        });
      }
      if (routeServer) {
        const server = routeServer;
        routeServer = undefined;
        await server.close();
      }
      await inFlight.drain(COMMAND_DRAIN_CAP_MS);
    },
  };
}
