import { expect } from "vitest";
import { type AccessPolicyOptions, createAccessPolicy } from "../../src/access/policy.ts";
import { buildIdentity } from "../../src/app/identity.ts";
import { type Clock, ManualClock, systemClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { createPaletteClient, type PaletteClient } from "../../src/palette/client.ts";
import { createUndiciTransport, type WireRequest } from "../../src/palette/http.ts";
import { Secret } from "../../src/secret.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator, SimulatorOptions } from "../../src/simulator/types.ts";
import type { AuditRecord } from "../../src/store/audit.ts";
import { ChangeStore } from "../../src/store/changes.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import { CONFIRM_NAME_FIELD } from "../../src/views/change.ts";
import type { FakeSlack, RecordedCall } from "./fake-slack.ts";
import { type BotHarness, type HarnessOptions, startBot } from "./slack-harness.ts";
import { interactiveBody, loadPayload } from "./slack-request.ts";

/**
 * The day-2 change tests' common ground: a ManualClock, the simulator, the real Palette client
 * whose transport records the writes it sends, the bot on the fake Slack (follower ticked by
 * hand), and the moves a person makes (a signed `/palette`, the confirmation submitted) with the
 * waits that read what the bot said, its `changes` rows and its audit rows.
 */

export const CHANNEL = "C111";
/** the simulator's lifecycle in the tests that follow a resize or a delete */
export const RESIZE_MS = 4_000;

export interface RecordedWrite {
  method: string;
  path: string;
  /** the JSON body sent, when the harness was asked to keep bodies */
  body?: unknown;
}

export interface ChangesHarness {
  bot: BotHarness;
  sim: RunningSimulator;
  palette: PaletteClient;
  clock: ManualClock;
  /** the simulator's first project */
  project: string;
  /** PALETTE_PROJECTS as the bot holds it (a test may narrow it to play a restart) */
  projects: string[];
  /** the requests `isWrite` picked, in the order the bot sent them */
  writes: RecordedWrite[];
  /** called before each GET the bot sends Palette, when set: a test's way into a race */
  beforeRead?: (request: WireRequest) => Promise<void>;
  close(): Promise<void>;
}

export interface ChangesHarnessOptions {
  /** default a ManualClock at 2026-11-25 12:00 UTC */
  clock?: ManualClock;
  /** a simulator the test owns (not closed with the harness) */
  sim?: RunningSimulator;
  /** the simulator to start (all of its options but the clock); default 12 clusters, seed 21,
   * resizes and deletes of RESIZE_MS */
  simulator?: Omit<SimulatorOptions, "clock">;
  /** which requests count as writes; default PUT, PATCH and DELETE */
  isWrite?: (request: WireRequest) => boolean;
  /** keep each write's JSON body too */
  keepBodies?: boolean;
  /** the client's time to Palette's answer (headers and body) */
  answerTimeoutMs?: number;
  /** the access policy's lists (allowKubeconfig and allowLaunch default to nobody) */
  access: Partial<Omit<AccessPolicyOptions, "client" | "clock" | "logger">>;
  /** Slack's usergroups.users.list; default every group empty */
  groupMembers?: (usergroup: string) => string[];
  /** PALETTE_PROJECTS; default the simulator's first project */
  projects?: (sim: RunningSimulator) => string[];
  /** APPROVAL_REQUIRED for these verbs, 30 minutes to approve unless said otherwise */
  approvals?: string[] | { verbs: string[]; channel?: string; ttlMs?: number };
  /** anything else for the bot (its store, its fake Slack, identity) */
  bot?: (
    sim: RunningSimulator,
    palette: PaletteClient,
    clock: ManualClock,
  ) => Partial<HarnessOptions>;
}

/**
 * IDENTITY=linked or strict with LINK_METHOD=key, for startBot's `identity`: the links sealed
 * with a key of 32 `keyByte` bytes, each person's key checked against the simulator
 */
export function identityByKey(
  mode: "linked" | "strict",
  keyByte: number,
  sim: RunningSimulator,
  clock: Clock = systemClock,
) {
  return (db: SqlDb) =>
    buildIdentity(
      {
        mode,
        method: "key",
        keys: { current: new Secret(Buffer.alloc(32, keyByte).toString("base64")) },
      },
      { db, clock, logger: silentLogger, paletteApiUrl: sim.url },
    );
}

/** the harness's `bot` option for IDENTITY=strict, LINK_METHOD=key (see identityByKey) */
export function strictIdentity(keyByte: number) {
  return (sim: RunningSimulator, _palette: PaletteClient, clock: ManualClock) => ({
    identity: identityByKey("strict", keyByte, sim, clock),
  });
}

/** ALLOW_SCALE, ALLOW_DELETE and the rest naming `people`; ALLOW_LOGS `logs` */
export function allChanges(people: string[], logs = people) {
  return {
    scale: people,
    delete: people,
    maintenance: people,
    backup: people,
    logs,
    upgrade: people,
  };
}

/** every PUT, PATCH and DELETE, and feature POST (backup, logs), the bot sends Palette */
export function changeOrFeature(request: WireRequest): boolean {
  return (
    ["PUT", "PATCH", "DELETE"].includes(request.method) ||
    (request.method === "POST" && request.path.includes("/features/"))
  );
}

/**
 * Links `slackUserId` to the simulator's user `paletteUserUid` by a key of that user's own
 * (IDENTITY=linked or strict), as `/palette login` would; returns the key
 */
export async function linkWithOwnKey(
  h: { bot: BotHarness; sim: RunningSimulator },
  slackUserId: string,
  user: { uid: string; name: string; email: string },
): Promise<string> {
  const apiKey = h.sim.control.issueUserKey(user.email);
  await h.bot.bot.edge.commandDeps.identity!.store.put({
    slackUserId,
    paletteUserUid: user.uid,
    paletteUserName: user.name,
    method: "key",
    apiKey: new Secret(apiKey),
  });
  return apiKey;
}

const isChange = (request: WireRequest) => ["PUT", "PATCH", "DELETE"].includes(request.method);

const opened: ChangesHarness[] = [];

/** for afterEach: closes every harness started since the last call, the latest first */
export async function closeChangesHarnesses(): Promise<void> {
  for (const harness of opened.splice(0).reverse()) await harness.close();
}

export async function startChangesHarness(options: ChangesHarnessOptions): Promise<ChangesHarness> {
  const clock = options.clock ?? new ManualClock(Date.UTC(2026, 10, 25, 12));
  const ownSim = !options.sim;
  const sim =
    options.sim ??
    (await startSimulator({
      ...(options.simulator ?? {
        clusters: 12,
        seed: 21,
        lifecycle: { provisioningMs: RESIZE_MS, deletingMs: RESIZE_MS },
      }),
      clock,
    }));
  const isWrite = options.isWrite ?? isChange;
  const harness = { writes: [] as RecordedWrite[] } as ChangesHarness;
  const inner = createUndiciTransport(sim.url, { bodyTimeoutMs: options.answerTimeoutMs });
  const palette = createPaletteClient({
    baseUrl: sim.url,
    credentials: { kind: "apiKey", apiKey: new Secret(sim.credentials.apiKey) },
    logger: silentLogger,
    rateLimit: false,
    retries: 0,
    transport: {
      async send(request: WireRequest) {
        if (request.method === "GET") await harness.beforeRead?.(request);
        if (isWrite(request)) {
          harness.writes.push(
            options.keepBodies
              ? {
                  method: request.method,
                  path: request.path,
                  body: request.body ? JSON.parse(request.body) : undefined,
                }
              : { method: request.method, path: request.path },
          );
        }
        return inner.send(request);
      },
      close: () => inner.close(),
    },
  });
  const project = sim.control.projects()[0]!;
  const projects = options.projects ? options.projects(sim) : [project];
  const members = options.groupMembers ?? (() => []);
  const policy = createAccessPolicy({
    allowLaunch: [],
    allowKubeconfig: [],
    ...options.access,
    client: {
      usergroups: {
        users: { list: async ({ usergroup }) => ({ ok: true, users: members(usergroup) }) },
      },
    },
    clock,
    logger: silentLogger,
  });
  const approvals = Array.isArray(options.approvals)
    ? { verbs: options.approvals }
    : options.approvals;
  const bot = await startBot({
    palette,
    clock,
    policy,
    projects,
    approvals: approvals ? { ttlMs: 30 * 60_000, ...approvals } : undefined,
    changeSchedule: () => ({ stop() {} }),
    ...options.bot?.(sim, palette, clock),
  });
  Object.assign(harness, {
    bot,
    sim,
    palette,
    clock,
    project,
    projects,
    async close() {
      await bot.close();
      await palette.close();
      if (ownSim) await sim.close();
    },
  });
  opened.push(harness);
  return harness;
}

/** an aws cluster, Running, with a control-plane pool of 1 and a worker pool of 3 */
export function awsCluster(
  h: Pick<ChangesHarness, "sim" | "project">,
  name: string,
  projectUid = h.project,
) {
  return h.sim.control.addCluster({
    name,
    projectUid,
    provider: "aws",
    pools: [
      { name: "cp-pool", size: 1, isControlPlane: true, instanceType: "m5.large" },
      { name: "worker-pool", size: 3, isControlPlane: false, instanceType: "m5.xlarge" },
    ],
  });
}

export interface OpenedView {
  id: string;
  callback_id: string;
  private_metadata: string;
  blocks: unknown[];
}

let viewSequence = 0;

/** a view id no other view of the test file has (the bot knows a retried submit by it) */
export function nextViewId(prefix: string): string {
  return `${prefix}${++viewSequence}`;
}

export interface AskOptions {
  userId: string;
  channelId?: string;
  /** the opened view's id is `<prefix><n>` */
  viewPrefix?: string;
  timeoutMs?: number;
}

/**
 * `/palette <text>`: the confirmation Slack was asked to open, or else the reply at the
 * response_url (the bot answers one way or the other)
 */
export async function ask(h: { bot: BotHarness }, text: string, options: AskOptions) {
  const { userId, channelId = CHANNEL, viewPrefix = "V", timeoutMs = 3_000 } = options;
  const before = h.bot.fake.callsTo("views.open").length;
  const answer = await h.bot.command(text, { userId, channelId });
  const reply = () =>
    h.bot.fake.callsTo("response").find((call) => call.body._responseId === answer.responseId);
  const deadline = Date.now() + timeoutMs;
  while (h.bot.fake.callsTo("views.open").length === before && !reply()) {
    if (Date.now() > deadline) throw new Error(`no answer to /palette ${text}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const call = h.bot.fake.callsTo("views.open")[before];
  if (call) {
    const view = call.body.view as OpenedView;
    return {
      view: { ...view, id: nextViewId(viewPrefix) },
      reply: undefined,
      answer: undefined,
    };
  }
  const body = reply()!.body;
  return { view: undefined, reply: JSON.stringify(body), answer: body };
}

/** `/palette <text>` → the confirmation it opened; a reply instead is an error */
export async function openConfirmation(
  h: { bot: BotHarness },
  text: string,
  options: AskOptions,
): Promise<OpenedView> {
  const { view, reply } = await ask(h, text, options);
  if (!view) throw new Error(`no confirmation for ${text}: ${reply}`);
  return view;
}

/** the confirmation submitted as `userId` (with the typed name, when given) */
export async function submitConfirmation(
  h: { bot: BotHarness },
  view: OpenedView,
  options: { userId: string; typedName?: string },
) {
  const { payload } = loadPayload<{ payload: Record<string, unknown> }>("view_submission.json");
  const values =
    options.typedName === undefined
      ? {}
      : {
          [CONFIRM_NAME_FIELD]: {
            [CONFIRM_NAME_FIELD]: { type: "plain_text_input", value: options.typedName },
          },
        };
  const submission = {
    ...payload,
    user: { ...(payload.user as object), id: options.userId },
    view: {
      ...(payload.view as object),
      id: view.id,
      callback_id: view.callback_id,
      private_metadata: view.private_metadata,
      blocks: view.blocks,
      state: { values },
    },
    response_urls: [],
  };
  const answer = await h.bot.post(interactiveBody(submission));
  return {
    status: answer.status,
    // biome-ignore lint/suspicious/noExplicitAny: the tests read Slack's answer as they expect it
    body: (answer.text ? JSON.parse(answer.text) : {}) as any,
  };
}

/** the confirmation submitted, and Slack's request acknowledged with a 200 */
export async function confirmOk(
  h: { bot: BotHarness },
  view: OpenedView,
  options: { userId: string; typedName?: string },
): Promise<void> {
  const answer = await submitConfirmation(h, view, options);
  expect(answer.status).toBe(200);
}

export function texts(calls: RecordedCall[]): string[] {
  return calls.map((call) => JSON.stringify(call.body));
}

/** the first `method` call whose body holds `match`, once the bot has made it */
export async function waitForCall(
  on: FakeSlack | { bot: BotHarness },
  method: string,
  match: string,
  timeoutMs = 3_000,
): Promise<string> {
  const fake = "bot" in on ? on.bot.fake : on;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = texts(fake.callsTo(method)).find((text) => text.includes(match));
    if (found) return found;
    if (Date.now() > deadline) {
      throw new Error(`no ${method} with ${match}; saw ${texts(fake.callsTo(method)).join("\n")}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

type OnStore = { bot: BotHarness; clock: ManualClock };

/**
 * One round of the change follower, once every accepted change's card is recorded (the card is
 * posted after the submit's ack, so a round could otherwise run before the card exists)
 */
export async function tick(h: OnStore): Promise<void> {
  const store = new ChangeStore(h.bot.db, h.clock);
  const deadline = Date.now() + 3_000;
  while ((await store.following()).some((record) => !record.cardTs)) {
    if (Date.now() > deadline) throw new Error("a followed change has no card");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await h.bot.bot.edge.changeFollower.tick();
}

/** the submit and the clicks ack first and work after: wait until no change is executing */
export async function settle(h: OnStore): Promise<void> {
  const store = new ChangeStore(h.bot.db, h.clock);
  for (let i = 0; i < 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    if (i > 5 && !(await store.all()).some((record) => record.status === "executing")) return;
  }
}

/** the day-2 rows of the audit, newest first, out of the latest `limit` rows */
export async function changeAuditRows(
  h: { bot: BotHarness },
  limit: number,
): Promise<AuditRecord[]> {
  return (await h.bot.audit.recent(limit)).filter((row) => row.action === "change");
}
