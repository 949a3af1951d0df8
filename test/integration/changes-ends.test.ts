import { webApi } from "@slack/bolt";
import { afterEach, describe, expect, it } from "vitest";
import { createAccessPolicy } from "../../src/access/policy.ts";
import { allowAll } from "../../src/access/types.ts";
import { buildIdentity } from "../../src/app/identity.ts";
import { ManualClock, systemClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { MAX_FAILED_READS } from "../../src/model/change.ts";
import { createPaletteClient, type PaletteClient } from "../../src/palette/client.ts";
import { createUndiciTransport, type WireRequest } from "../../src/palette/http.ts";
import { Secret } from "../../src/secret.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { slackClientOptions } from "../../src/slack/app.ts";
import { slackEmailOf } from "../../src/slack/user-email.ts";
import { ChangeStore } from "../../src/store/changes.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import { APPROVE_ACTION_ID } from "../../src/views/change.ts";
import { type FakeSlack, type RecordedCall, startFakeSlack } from "../support/fake-slack.ts";
import { type BotHarness, type HarnessOptions, startBot } from "../support/slack-harness.ts";
import { interactiveBody, loadPayload } from "../support/slack-request.ts";

/**
 * Every claimed change reaches an end the requester sees: signed Slack requests into the bot,
 * the real Palette client, the simulator (with injected faults) behind it, the fake Slack
 * recording what the bot said. Each case failed on main before the change that made it pass.
 */

const RESIZE_MS = 4_000;
const CHANNEL = "C111";
const ALICE = "W111";
const BOB = "W222";

interface Harness {
  bot: BotHarness;
  sim: RunningSimulator;
  clock: ManualClock;
  project: string;
  /** every PUT, PATCH and DELETE the bot sent Palette */
  writes: Array<{ method: string; path: string }>;
}

const opened: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

async function start(
  options: {
    approvals?: string[];
    /** the client's time to Palette's answer (headers and body) */
    answerTimeoutMs?: number;
    bot?: (sim: RunningSimulator, palette: PaletteClient) => Partial<HarnessOptions>;
  } = {},
): Promise<Harness> {
  const clock = new ManualClock(Date.UTC(2026, 10, 25, 12));
  const sim = await startSimulator({
    clock,
    clusters: 12,
    seed: 21,
    lifecycle: { provisioningMs: RESIZE_MS, deletingMs: RESIZE_MS },
  });
  opened.push(() => sim.close());
  const writes: Harness["writes"] = [];
  const inner = createUndiciTransport(sim.url, { bodyTimeoutMs: options.answerTimeoutMs });
  const palette = createPaletteClient({
    baseUrl: sim.url,
    credentials: { kind: "apiKey", apiKey: new Secret(sim.credentials.apiKey) },
    logger: silentLogger,
    rateLimit: false,
    retries: 0,
    transport: {
      send(request: WireRequest) {
        if (["PUT", "PATCH", "DELETE"].includes(request.method)) {
          writes.push({ method: request.method, path: request.path });
        }
        return inner.send(request);
      },
      close: () => inner.close(),
    },
  });
  opened.push(() => palette.close());
  const project = sim.control.projects()[0]!;
  const policy = createAccessPolicy({
    allowLaunch: [],
    allowKubeconfig: [],
    allowChanges: { scale: [ALICE, BOB], delete: [ALICE, BOB] },
    client: { usergroups: { users: { list: async () => ({ ok: true, users: [] }) } } },
    clock,
    logger: silentLogger,
  });
  const bot = await startBot({
    palette,
    clock,
    policy,
    projects: [project],
    approvals: options.approvals ? { verbs: options.approvals, ttlMs: 30 * 60_000 } : undefined,
    changeSchedule: () => ({ stop() {} }),
    ...options.bot?.(sim, palette),
  });
  opened.push(() => bot.close());
  return { bot, sim, clock, project, writes };
}

function awsCluster(h: Harness, name: string) {
  return h.sim.control.addCluster({
    name,
    projectUid: h.project,
    provider: "aws",
    pools: [
      { name: "cp-pool", size: 1, isControlPlane: true, instanceType: "m5.large" },
      { name: "worker-pool", size: 3, isControlPlane: false, instanceType: "m5.xlarge" },
    ],
  });
}

let viewSequence = 0;

/** `/palette <text>` and the confirmation it opened */
async function ask(h: Harness, text: string, userId = ALICE) {
  const before = h.bot.fake.callsTo("views.open").length;
  await h.bot.command(text, { userId, channelId: CHANNEL });
  const deadline = Date.now() + 5_000;
  while (h.bot.fake.callsTo("views.open").length === before) {
    if (Date.now() > deadline) throw new Error(`no confirmation for /palette ${text}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const view = h.bot.fake.callsTo("views.open")[before]!.body.view as {
    callback_id: string;
    private_metadata: string;
    blocks: unknown[];
  };
  return { ...view, id: `VE${++viewSequence}` };
}

async function confirm(h: Harness, view: Awaited<ReturnType<typeof ask>>, userId = ALICE) {
  const { payload } = loadPayload<{ payload: Record<string, unknown> }>("view_submission.json");
  const submission = {
    ...payload,
    user: { ...(payload.user as object), id: userId },
    view: {
      ...(payload.view as object),
      id: view.id,
      callback_id: view.callback_id,
      private_metadata: view.private_metadata,
      blocks: view.blocks,
      state: { values: {} as Record<string, unknown> },
    },
    response_urls: [],
  };
  const answer = await h.bot.post(interactiveBody(submission));
  expect(answer.status).toBe(200);
}

function texts(calls: RecordedCall[]): string[] {
  return calls.map((call) => JSON.stringify(call.body));
}

async function waitForCall(fake: FakeSlack, method: string, match: string, timeoutMs = 5_000) {
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

/** the line only `userId` sees (chat.postEphemeral), once the bot has sent it */
async function privateLine(fake: FakeSlack, userId: string, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const call = fake.callsTo("chat.postEphemeral").find((entry) => entry.body.user === userId);
    if (call) return JSON.stringify(call.body);
    if (Date.now() > deadline) throw new Error(`nothing told to ${userId}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function records(h: Harness) {
  return new ChangeStore(h.bot.db, h.clock).all();
}

/** the (only) change once it is at `status`, with its card or request card recorded */
async function waitForStatus(h: Harness, status: string, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [record] = await records(h);
    if (record?.status === status && (record.cardTs || record.requestTs)) return record;
    if (Date.now() > deadline) {
      const said = texts(h.bot.fake.callsTo("chat.postEphemeral")).join("\n");
      throw new Error(
        `no change reached ${status}; rows: ${JSON.stringify(await records(h))}; said: ${said}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const tick = (h: Harness) => h.bot.bot.edge.changeFollower.tick();

describe("day-2 ends: an approval whose re-read of Palette fails", () => {
  it("tells the approver and the requester, closes the request card, and leaves no row executing", async () => {
    const h = await start({ approvals: ["scale"] });
    awsCluster(h, "reread-me");
    await confirm(h, await ask(h, "scale reread-me worker-pool 5"));
    const requested = await waitForStatus(h, "awaiting_approval");
    await waitForCall(h.bot.fake, "chat.postMessage", "Change needs approval");

    // Palette answers the re-read of the cluster's pools with a 500 (no retries in this client)
    h.sim.control.addFault({
      pathPrefix: "/v1/cloudconfigs/aws/",
      method: "GET",
      kind: "status",
      status: 500,
    });
    await h.bot.click(APPROVE_ACTION_ID, String(requested.id), { userId: BOB });

    const ended = await waitForStatus(h, "failed");
    expect(ended.reason).toContain("Palette could not be read");
    const toBob = await privateLine(h.bot.fake, BOB);
    const toAlice = await privateLine(h.bot.fake, ALICE);
    expect(toBob).toContain("Not sent");
    expect(toBob).toContain("Palette had an internal error");
    expect(toAlice).toMatch(/not sent/i);
    const card = await waitForCall(h.bot.fake, "chat.update", "did not run");
    expect(card).not.toContain("approve_change");
    expect((await records(h)).filter((record) => record.status === "executing")).toEqual([]);
    expect(h.writes).toEqual([]);
  });
});

describe("day-2 ends: a confirmation whose re-read of Palette fails", () => {
  it("tells the person privately that nothing was sent, and why; no change is recorded", async () => {
    const h = await start();
    awsCluster(h, "confirm-reread");
    const view = await ask(h, "scale confirm-reread worker-pool 5");
    h.sim.control.addFault({
      pathPrefix: "/v1/cloudconfigs/aws/",
      method: "GET",
      kind: "status",
      status: 500,
    });
    await confirm(h, view);
    const told = await privateLine(h.bot.fake, ALICE);
    expect(told).toContain("Not sent: Palette could not be read");
    expect(told).toContain("Palette had an internal error");
    expect(await records(h)).toEqual([]);
    expect(h.writes).toEqual([]);
    expect(h.bot.fake.callsTo("chat.postMessage")).toEqual([]);
  });
});

describe("day-2 ends: a write Palette applied but answered late", () => {
  it("is unconfirmed, then followed from Palette's state to Scaled, with exactly one PUT", async () => {
    const h = await start({ answerTimeoutMs: 400 });
    awsCluster(h, "late-answer");
    const view = await ask(h, "scale late-answer worker-pool 5");
    // Palette resizes the pool, then answers 2 s later: past the client's 400 ms
    h.sim.control.addFault({
      pathPrefix: "/v1/cloudconfigs/aws/",
      method: "PUT",
      kind: "late",
      latencyMs: 2_000,
      times: 1,
    });
    await confirm(h, view);
    const card = await waitForCall(h.bot.fake, "chat.postMessage", "unconfirmed");
    expect(card).toContain("Palette did not answer");
    expect(card).not.toContain("failed");
    expect(card).not.toContain("Try again");
    await waitForStatus(h, "unconfirmed");

    // the follower reads the pool: Palette has it at 5, so the change is followed as accepted
    await tick(h);
    await waitForCall(h.bot.fake, "chat.update", "3 of 5 Running");
    h.clock.advance(RESIZE_MS + 1_000);
    await tick(h);
    const done = await waitForCall(h.bot.fake, "chat.update", "Scaled");
    expect(done).toContain("5 Running");
    expect((await records(h))[0]).toMatchObject({ status: "done" });
    expect(h.writes.filter((write) => write.method === "PUT")).toHaveLength(1);
  });

  it("ends 'not applied' when Palette shows no sign of it after the check window, never re-sent", async () => {
    const h = await start({ answerTimeoutMs: 400 });
    awsCluster(h, "lost-answer");
    const view = await ask(h, "scale lost-answer worker-pool 5");
    // the connection drops after the request went out and before Palette took it
    h.sim.control.addFault({
      pathPrefix: "/v1/cloudconfigs/aws/",
      method: "PUT",
      kind: "reset",
      times: 1,
    });
    await confirm(h, view);
    await waitForCall(h.bot.fake, "chat.postMessage", "unconfirmed");
    await waitForStatus(h, "unconfirmed");
    await tick(h);
    expect((await records(h))[0]).toMatchObject({ status: "unconfirmed" });
    h.clock.advance(3 * 60_000);
    await tick(h);
    const ended = await waitForCall(h.bot.fake, "chat.update", "not applied");
    expect(ended).toContain("was not sent again");
    expect((await records(h))[0]).toMatchObject({ status: "failed" });
    expect(h.writes.filter((write) => write.method === "PUT")).toHaveLength(1);
  });
});

describe("day-2 ends: the store fails between Palette's answer and `accepted`", () => {
  it("tells the requester at once, and the lease holder later reads Palette to Scaled, one PUT", async () => {
    const inner = await openSqlite(":memory:");
    opened.push(() => inner.close());
    let refusals = 0;
    // the database drops the one statement that records Palette's answer
    const db = new Proxy(inner, {
      get(target, property, receiver) {
        if (property === "get") {
          return (sql: string, params?: unknown[]) => {
            if (/^UPDATE changes SET status/.test(sql.trim()) && params?.[0] === "accepted") {
              if (refusals++ === 0) return Promise.reject(new Error("connection lost"));
            }
            return target.get(sql, params as never);
          };
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const h = await start({ bot: () => ({ db }) });
    awsCluster(h, "store-drop");
    await confirm(h, await ask(h, "scale store-drop worker-pool 5"));
    const told = await privateLine(h.bot.fake, ALICE);
    expect(told).toContain("hit an error");
    expect(told).toContain("not sent twice");
    expect(told).not.toContain("connection lost");
    expect((await records(h))[0]).toMatchObject({ status: "executing" });

    h.clock.advance(3 * 60_000);
    await tick(h);
    const card = await waitForCall(h.bot.fake, "chat.postMessage", "store-drop");
    expect(card).toContain("unconfirmed");
    await waitForCall(h.bot.fake, "chat.update", "Scaled");
    expect((await records(h))[0]).toMatchObject({ status: "done" });
    expect(h.writes.filter((write) => write.method === "PUT")).toHaveLength(1);
  });
});

describe("day-2 ends: a follower whose reads keep failing", () => {
  it("ends the change as could-not-be-checked, with a card that says so, instead of ⏳ forever", async () => {
    const h = await start();
    awsCluster(h, "unreadable");
    await confirm(h, await ask(h, "scale unreadable worker-pool 5"));
    await waitForStatus(h, "accepted");
    h.sim.control.addFault({
      pathPrefix: "/v1/cloudconfigs/aws/",
      method: "GET",
      kind: "status",
      status: 403,
    });
    for (let round = 1; round < MAX_FAILED_READS; round++) {
      await tick(h);
      expect((await records(h))[0]).toMatchObject({ status: "accepted" });
    }
    await tick(h);
    const card = await waitForCall(h.bot.fake, "chat.update", "could not be checked");
    expect(card).toContain("see Palette");
    expect((await records(h))[0]).toMatchObject({ status: "failed" });
    expect(h.writes).toHaveLength(1);
  });
});

describe("day-2 ends: LINK_METHOD=email when minting the person's key fails", () => {
  it("tells the requester the change was not sent, and leaves no row executing", async () => {
    const EMAILS: Record<string, string> = { [ALICE]: "editor@example.com" };
    const own = await startFakeSlack();
    own.on("users.info", (call) => ({
      body: {
        ok: true,
        user: { id: call.body.user, profile: { email: EMAILS[String(call.body.user)] } },
      },
    }));
    opened.push(() => own.close());
    const slack = new webApi.WebClient("xoxb-test", slackClientOptions(own.apiUrl));
    const h = await start({
      bot: (sim, palette) => ({
        fake: own,
        policy: allowAll,
        identity: (db: SqlDb) =>
          buildIdentity(
            {
              mode: "linked",
              method: "email",
              keys: { current: new Secret(Buffer.alloc(32, 2).toString("base64")) },
            },
            {
              db,
              clock: systemClock,
              logger: silentLogger,
              paletteApiUrl: sim.url,
              service: palette,
              emailOf: slackEmailOf(slack),
            },
          ),
      }),
    });
    awsCluster(h, "email-scale");
    const view = await ask(h, "scale email-scale worker-pool 5");
    h.sim.control.addFault({
      pathPrefix: "/v1/apiKeys",
      method: "POST",
      kind: "status",
      status: 500,
    });
    await confirm(h, view);
    const ended = await waitForStatus(h, "failed");
    expect(ended.reason).toContain("Not sent");
    const card = await waitForCall(own, "chat.postMessage", "failed");
    expect(card).toContain("Palette had an internal error");
    expect(card).toContain(`<@${ALICE}>`);
    expect(h.writes).toEqual([]);
  });
});
