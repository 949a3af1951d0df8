import { ManualClock } from "../../src/clock.ts";
import { createEdgeWatch } from "../../src/edge/watch.ts";
import { type Logger, silentLogger } from "../../src/log.ts";
import {
  createSender,
  type Sender,
  type SenderOptions,
} from "../../src/notify/delivery/outbox-sender.ts";
import { createPoller, type Poller } from "../../src/notify/poll/poll.ts";
import { createPaletteClient, type PaletteClient } from "../../src/palette/client.ts";
import { Secret } from "../../src/secret.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator, SimulatorOptions } from "../../src/simulator/types.ts";
import { createSlackPoster } from "../../src/slack/notify-poster.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import { SubscriptionStore } from "../../src/store/subscriptions.ts";
import { type FakeSlack, type FakeSlackOptions, startFakeSlack } from "./fake-slack.ts";

/**
 * The notification pipeline wired for tests: REAL simulator, REAL Palette client, REAL poller and
 * sender, the fake Slack, and a ManualClock that the sender's sleeps advance (no real waiting).
 */
export interface NotifyHarness {
  sim: RunningSimulator;
  palette: PaletteClient;
  fake: FakeSlack;
  db: SqlDb;
  clock: ManualClock;
  poller: Poller;
  sender: Sender;
  subs: SubscriptionStore;
  /** one poll, then deliver everything (the clock jumps over the paced waits) */
  cycle(): Promise<void>;
  /** chat.postMessage / chat.update calls to one channel */
  posts(channel: string): Array<Record<string, unknown>>;
  updates(channel: string): Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startNotifyHarness(
  options: SimulatorOptions & {
    dbPath?: string;
    /** the store (test/support/backends.ts), instead of SQLite at `dbPath` or in memory */
    openDb?: () => Promise<SqlDb>;
    /** PALETTE_PROJECTS for the poller; default every simulated project, [] = tenant scope */
    pollProjects?: string[];
    /** sender settings beyond the harness's own (retry cap, in-flight cap…) */
    sender?: Partial<Omit<SenderOptions, "db" | "slack" | "clock" | "logger">>;
    /** per Slack call, real milliseconds (the poster's time-out) */
    slackTimeoutMs?: number;
    /** the poller's likely-cause lines (issue 27); the simulator's `clock`, if a ManualClock, drives both */
    likelyCauses?: boolean;
    /** the fake Slack's options (a lax Slack, with its reason) */
    fakeSlack?: FakeSlackOptions;
    /** WHY_SHOW_EMAIL for the likely-cause lines */
    causeEmails?: boolean;
    /** the edge fleet watched too (issue 39): EDGE_UNHEALTHY_GRACE in ms and EDGE_SITE_TAG */
    edge?: { graceMs: number; siteTag?: string; logger?: Logger };
  } = {},
): Promise<NotifyHarness> {
  const {
    dbPath,
    openDb,
    sender: senderOptions,
    slackTimeoutMs,
    pollProjects,
    likelyCauses,
    fakeSlack,
    causeEmails,
    edge,
    ...simulatorOptions
  } = options;
  const sim = await startSimulator({ clusters: 24, projects: 2, seed: 11, ...simulatorOptions });
  const palette = createPaletteClient({
    baseUrl: sim.url,
    credentials: { kind: "apiKey", apiKey: new Secret(sim.credentials.apiKey) },
    logger: silentLogger,
    rateLimit: false,
    retries: 1,
    backoff: { baseMs: 1, maxMs: 5 },
  });
  // Slack's rate tiers refill on the harness's clock, the one the sender sleeps on: a 429's
  // Retry-After, slept by the sender, is the time the fake's bucket sees pass
  const fake = await startFakeSlack({ now: () => clock.now(), ...fakeSlack });
  const db = openDb ? await openDb() : await openSqlite(dbPath ?? ":memory:");
  const clock =
    simulatorOptions.clock instanceof ManualClock
      ? simulatorOptions.clock
      : new ManualClock(Date.UTC(2026, 0, 1, 12));
  const projects = pollProjects ?? sim.control.projects();
  const poller = createPoller({
    palette,
    db,
    clock,
    logger: silentLogger,
    projects,
    ...(edge
      ? {
          edge: createEdgeWatch({
            palette,
            db,
            clock,
            logger: edge.logger ?? silentLogger,
            scopes: projects.length > 0 ? projects : [""],
            siteTag: edge.siteTag ?? "site",
            graceMs: edge.graceMs,
          }),
        }
      : {}),
    ...(likelyCauses ? { likelyCauses } : {}),
    ...(causeEmails ? { causeEmails } : {}),
  });
  const sender = createSender({
    db,
    slack: createSlackPoster({
      token: new Secret("xoxb-test"),
      apiUrl: fake.apiUrl,
      timeoutMs: slackTimeoutMs,
    }),
    clock,
    logger: silentLogger,
    sleep: async (ms) => clock.advance(ms),
    random: () => 0.5,
    ...senderOptions,
  });
  const subs = new SubscriptionStore(db, clock);
  const inChannel = (method: string, channel: string) =>
    fake
      .callsTo(method)
      .filter((call) => call.body.channel === channel)
      .map((call) => call.body);
  return {
    sim,
    palette,
    fake,
    db,
    clock,
    poller,
    sender,
    subs,
    async cycle() {
      await poller.runCycle();
      await sender.drainAll(10_000);
      clock.advance(30_000);
    },
    posts: (channel) => inChannel("chat.postMessage", channel),
    updates: (channel) => inChannel("chat.update", channel),
    async close() {
      await poller.stop();
      await palette.close();
      await sim.close();
      await fake.close();
      await db.close();
    },
  };
}
