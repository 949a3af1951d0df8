import { type AccessPolicy, allowAll } from "../../src/access/types.ts";
import type { Assistant } from "../../src/assistant/ask.ts";
import { type Clock, systemClock } from "../../src/clock.ts";
import { type Logger, silentLogger } from "../../src/log.ts";
import type { PaletteApi } from "../../src/palette/api.ts";
import { Secret } from "../../src/secret.ts";
import { createSlackApp, type RunningSlackApp } from "../../src/slack/app.ts";
import type { SlackAppDeps } from "../../src/slack/types.ts";
import { AuditLog } from "../../src/store/audit.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import type { CommandDeps } from "../../src/verb-kit/types.ts";
import {
  type FakeSlack,
  type FakeSlackOptions,
  type RecordedCall,
  startFakeSlack,
} from "./fake-slack.ts";
import { interactiveBody, loadPayload, signedRequest, slashCommandBody } from "./slack-request.ts";

/**
 * The bot's Slack edge in HTTP mode on 127.0.0.1, in front of the fake Slack: tests and the ack
 * benchmark send it signed requests in Slack's wire format and read what the fake Slack got.
 */
export const SIGNING_SECRET = "test-signing-secret";
export const BOT_TOKEN = "xoxb-test-bot-token";

export interface BotHarness {
  fake: FakeSlack;
  bot: RunningSlackApp;
  db: SqlDb;
  audit: AuditLog;
  /** http://127.0.0.1:<port>/slack/events */
  url: string;
  base: string;
  /** a signed `/palette <text>`; its answer goes to `${fake.url}/response/<responseId>` */
  command(
    text: string,
    options?: { userId?: string; channelId?: string },
  ): Promise<{ status: number; text: string; ms: number; responseId: string }>;
  /** the form body of a `/palette <text>` (fresh trigger_id), for sending by hand */
  commandRequest(
    text: string,
    options?: { userId?: string; channelId?: string },
  ): { body: string; responseId: string };
  /** signs `body` now and POSTs it to /slack/events, with extra headers if given */
  post(
    body: string,
    headers?: Record<string, string>,
  ): Promise<{ status: number; text: string; ms: number }>;
  /** a signed click on a button of a message */
  click(
    actionId: string,
    value: string,
    options?: { userId?: string; withoutResponseUrl?: boolean },
  ): Promise<{ status: number; responseId: string }>;
  /** each mention, DM or shared link the bot has dealt with so far, in order */
  conversations: Array<{ event: string; outcome: string }>;
  /** waits until the bot has dealt with `count` mentions, DMs or links in all */
  settled(count: number, timeoutMs?: number): Promise<Array<{ event: string; outcome: string }>>;
  /** the response_url posts for one request, waiting until there are `count` */
  responses(responseId: string, count?: number, timeoutMs?: number): Promise<RecordedCall[]>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  palette?: PaletteApi;
  policy?: AccessPolicy;
  dispatch?: SlackAppDeps["dispatch"];
  onModal?: SlackAppDeps["onModal"];
  home?: SlackAppDeps["home"];
  optionsBudgetMs?: SlackAppDeps["optionsBudgetMs"];
  clock?: Clock;
  logger?: Logger;
  fake?: FakeSlack;
  /** the fake Slack's options when the harness starts it (a lax Slack, with its reason) */
  fakeSlack?: FakeSlackOptions;
  projects?: string[];
  maxConcurrentCommands?: number;
  /** SLACK_TEAM_ID; the captured payloads come from team T111 */
  homeTeamId?: string;
  /** the store to share with a notification pipeline; default a fresh one (closed with the bot) */
  db?: SqlDb;
  /** what the bot calls when an action queued a notification (the sender's wake) */
  wakeSender?: SlackAppDeps["wakeSender"];
  /** IDENTITY=linked: the identity deps, built on the harness's store */
  identity?: (db: SqlDb) => CommandDeps["identity"];
  /** what keeps a change sender's heartbeat (ManualTimers to move it with the clock) */
  timers?: CommandDeps["timers"];
  /** APPROVAL_REQUIRED and friends */
  approvals?: CommandDeps["approvals"];
  /** how the change follower runs; tests pass one that never fires and tick it by hand */
  changeSchedule?: SlackAppDeps["changeSchedule"];
  /** the grounded assistant (ASSISTANT_PROVIDER), built on the harness's command deps */
  assistant?: (deps: CommandDeps) => Assistant | undefined;
}

const unusedPalette = new Proxy({} as PaletteApi, {
  get: () => () => {
    throw new Error("this test gave the bot no Palette");
  },
});

let triggerSequence = 0;

export async function startBot(options: HarnessOptions = {}): Promise<BotHarness> {
  const fake = options.fake ?? (await startFakeSlack(options.fakeSlack));
  const clock = options.clock ?? systemClock;
  const db = options.db ?? (await openSqlite(":memory:"));
  const audit = new AuditLog(db, clock);
  const logger = options.logger ?? silentLogger;
  const commandDeps: CommandDeps = {
    palette: options.palette ?? unusedPalette,
    db,
    audit,
    policy: options.policy ?? allowAll,
    clock,
    logger,
    projects: options.projects ?? [],
    consoleUrl: "https://console.example.com/",
    identity: options.identity?.(db),
    approvals: options.approvals,
    timers: options.timers,
  };
  const conversations: Array<{ event: string; outcome: string }> = [];
  const conversationWaiters: Array<() => void> = [];
  const bot = createSlackApp({
    slack: {
      botToken: new Secret(BOT_TOKEN),
      signingSecret: new Secret(SIGNING_SECRET),
      apiUrl: fake.apiUrl,
      mode: "http",
      homeTeamId: options.homeTeamId,
    },
    commandDeps,
    logger,
    dispatch: options.dispatch,
    onModal: options.onModal,
    home: options.home,
    optionsBudgetMs: options.optionsBudgetMs,
    maxConcurrentCommands: options.maxConcurrentCommands,
    wakeSender: options.wakeSender,
    changeSchedule: options.changeSchedule,
    assistant: options.assistant?.(commandDeps),
    onConversation: (event, outcome) => {
      conversations.push({ event, outcome });
      for (const wake of conversationWaiters.splice(0)) wake();
    },
  });
  const { port } = await bot.start(0);
  const base = `http://127.0.0.1:${port}`;
  const url = `${base}/slack/events`;
  let sequence = 0;

  const responses = async (responseId: string, count = 1, timeoutMs = 5_000) => {
    const deadline = Date.now() + timeoutMs;
    const mine = () => fake.callsTo("response").filter((c) => c.body._responseId === responseId);
    while (mine().length < count) {
      if (Date.now() > deadline) {
        throw new Error(
          `no ${count} answer(s) at response_url ${responseId}; saw ${mine().length}`,
        );
      }
      await fake.waitFor("response", fake.callsTo("response").length + 1, 100).catch(() => {});
    }
    return mine();
  };

  const commandRequest: BotHarness["commandRequest"] = (text, opts = {}) => {
    const responseId = `cmd${++sequence}`;
    const body = slashCommandBody({
      text,
      userId: opts.userId,
      channelId: opts.channelId,
      responseUrl: `${fake.url}/response/${responseId}`,
      triggerId: `${++triggerSequence}.111.trigger`,
    });
    return { body, responseId };
  };

  const post: BotHarness["post"] = async (body, headers = {}) => {
    const request = signedRequest(SIGNING_SECRET, body);
    const started = performance.now();
    const response = await fetch(url, {
      method: "POST",
      headers: { ...request.headers, ...headers },
      body,
    });
    const text = await response.text();
    return { status: response.status, text, ms: performance.now() - started };
  };

  return {
    fake,
    bot,
    db,
    audit,
    url,
    base,
    commandRequest,
    post,
    async command(text, opts = {}) {
      const { body, responseId } = commandRequest(text, opts);
      return { ...(await post(body)), responseId };
    },
    async click(actionId, value, opts = {}) {
      const responseId = `act${++sequence}`;
      const { payload } = loadPayload<{ payload: Record<string, unknown> }>(
        "block_actions.button_in_message.json",
      );
      const action = (payload.actions as Array<Record<string, unknown>>)[0]!;
      const click: Record<string, unknown> = {
        ...payload,
        user: { ...(payload.user as object), id: opts.userId ?? "W111" },
        trigger_id: `${++triggerSequence}.222.trigger`,
        response_url: `${fake.url}/response/${responseId}`,
        actions: [{ ...action, action_id: actionId, value }],
      };
      if (opts.withoutResponseUrl) {
        delete click.response_url;
        delete click.channel;
        click.container = { type: "view", view_id: "V111" };
      }
      const { status } = await post(interactiveBody(click));
      return { status, responseId };
    },
    responses,
    conversations,
    async settled(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (conversations.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) {
          throw new Error(`the bot dealt with ${conversations.length} of ${count} conversations`);
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          conversationWaiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return conversations;
    },
    async close() {
      await bot.stop();
      if (!options.fake) await fake.close();
      if (!options.db) await db.close();
    },
  };
}
