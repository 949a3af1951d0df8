import { randomUUID } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import { allowAll } from "../access/types.ts";
import type { Assistant } from "../assistant/ask.ts";
import { ChangeFollower } from "../changes/follow.ts";
import type { Clock } from "../clock.ts";
import { systemClock } from "../clock.ts";
import type {
  ApprovalConfig,
  Config,
  PaletteCredentials,
  ProxyConfig,
  StateStore,
} from "../config.ts";
import { consoleChangeBoard, runChangePrompts } from "../console/change-prompts.ts";
import { runLaunchPrompts } from "../console/launch-prompts.ts";
import { CONSOLE_REQUESTER, runConsole } from "../console/repl.ts";
import { linkWithKey } from "../identity/link.ts";
import { intervalScheduler, type Scheduler } from "../launch/watch.ts";
import { createLogger, type Logger } from "../log.ts";
import { createPaletteClient, type PaletteClient } from "../palette/client.ts";
import { routeProcessThroughProxy } from "../proxy.ts";
import { Secret } from "../secret.ts";
import { AuditLog } from "../store/audit.ts";
import { openStore } from "../store/open.ts";
import type { SqlDb } from "../store/sql.ts";
import type { CommandDeps } from "../verb-kit/types.ts";
import { buildAssistant } from "./assistant.ts";

export interface ConsoleSession {
  /** ASSISTANT_PROVIDER set (or the demo's scripted model): `ask <question>` */
  assistant?: Assistant;
  palette: PaletteClient;
  db: SqlDb;
  deps: CommandDeps;
  close(): Promise<void>;
}

/** The parts a console needs: a Palette client, the store, and the operator allowed everything. */
export async function openConsoleSession(input: {
  apiUrl: string;
  credentials: PaletteCredentials;
  projects: string[];
  consoleUrl: string;
  stateDb: StateStore;
  logger: Logger;
  clock?: Clock;
  /** TOKEN_REFRESH_SCHEDULE, for a service account; default every 10 minutes */
  tokenRefreshSchedule?: string;
  /** APPROVAL_REQUIRED and friends: a change the console confirms may need a second person */
  approvals?: ApprovalConfig;
  /** HTTPS_PROXY and friends, for Palette */
  proxy?: ProxyConfig;
}): Promise<ConsoleSession> {
  const clock = input.clock ?? systemClock;
  // opened before the Palette client: a store that cannot open leaves no timer running
  const db = await openStore(input.stateDb);
  const palette = createPaletteClient({
    baseUrl: input.apiUrl,
    credentials: input.credentials,
    logger: input.logger,
    clock,
    tokenRefreshSchedule: input.tokenRefreshSchedule,
    dispatcherOptions: { proxy: input.proxy },
  });
  const deps: CommandDeps = {
    palette,
    db,
    audit: new AuditLog(db, clock),
    policy: allowAll,
    clock,
    logger: input.logger,
    projects: input.projects,
    consoleUrl: input.consoleUrl,
    approvals: input.approvals,
  };
  return {
    palette,
    db,
    deps,
    async close() {
      await palette.close();
      await db.close();
    },
  };
}

/** Reads commands until end of input; `launch` walks the launch form as questions. */
export async function runConsoleOn(
  session: ConsoleSession,
  input: Readable = process.stdin,
  output: Writable = process.stdout,
  options: { followSchedule?: Scheduler } = {},
): Promise<void> {
  const print = (text: string) => output.write(`${text}\n`);
  // accepted changes are followed while the console is open, their cards printed as they move
  const follower = new ChangeFollower({
    db: session.db,
    palette: session.palette,
    board: consoleChangeBoard(print),
    clock: session.deps.clock,
    logger: session.deps.logger,
    audit: session.deps.audit,
  });
  const following = (options.followSchedule ?? intervalScheduler(CONSOLE_FOLLOW_EVERY_MS))(() =>
    follower.tick(),
  );
  try {
    await runConsole({
      input,
      output,
      deps: session.deps,
      assistant: session.assistant,
      onModal: async (reply, io) => {
        if (reply.modal === "login") {
          await loginPrompt(session, io);
          return;
        }
        if (reply.modal === "change") {
          await runChangePrompts({
            reply,
            ask: io.ask,
            print: io.print,
            deps: session.deps,
            requester: CONSOLE_REQUESTER,
            requestKey: `console:${randomUUID()}`,
          });
          return;
        }
        const result = await runLaunchPrompts({ ask: io.ask, print: io.print, deps: session.deps });
        if (result.kind === "cancelled") io.print(`launch cancelled: ${result.reason}`);
      },
    });
  } finally {
    following.stop();
    await follower.tick().catch(() => undefined);
  }
}

/** how often the console reads the state of the changes it follows */
const CONSOLE_FOLLOW_EVERY_MS = 5_000;

/** `login` at the console: the key is asked for on the next line, as the Slack form asks for it. */
async function loginPrompt(
  session: ConsoleSession,
  io: { ask(question: string): Promise<string>; print(text: string): void },
): Promise<void> {
  const identity = session.deps.identity;
  if (!identity) return;
  const key = (await io.ask("Palette API key:")).trim();
  const result = await linkWithKey(CONSOLE_REQUESTER.userId, new Secret(key), {
    store: identity.store,
    paletteAs: identity.paletteAs,
    logger: session.deps.logger,
  });
  io.print(
    result.ok
      ? `Linked as ${result.link.paletteUserName}${result.link.org ? ` in ${result.link.org}` : ""}. Commands that act now run as you in Palette.`
      : `Not linked: ${result.problem}`,
  );
}

/** `palette-chatops console`: the commands in a terminal against a real Palette. */
export async function runPaletteConsole(config: Config): Promise<number> {
  // logs go to stderr so that stdout holds only the answers (pipes stay clean)
  const logger = createLogger(
    config.logLevel === "info" ? "warn" : config.logLevel,
    process.stderr,
  );
  const session = await openConsoleSession({
    apiUrl: config.palette.apiUrl,
    credentials: config.palette.credentials,
    projects: config.palette.projects,
    consoleUrl: config.palette.consoleUrl,
    stateDb: config.stateDb,
    logger,
    tokenRefreshSchedule: config.tokenRefreshSchedule,
    approvals: config.approvals,
    proxy: config.proxy,
  });
  // the model's provider uses Node's fetch: through the proxy too
  const restoreDispatcher = routeProcessThroughProxy(config.proxy);
  session.assistant = await buildAssistant({ config: config.assistant, deps: session.deps });
  try {
    await runConsoleOn(session);
  } finally {
    await session.close();
    restoreDispatcher();
  }
  return 0;
}
