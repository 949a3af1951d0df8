import { webApi } from "@slack/bolt";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/access/types.ts";
import { buildIdentity } from "../../src/app/identity.ts";
import { systemClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { MAX_FAILED_READS } from "../../src/model/change.ts";
import type { PaletteClient } from "../../src/palette/client.ts";
import { Secret } from "../../src/secret.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { slackClientOptions } from "../../src/slack/app.ts";
import { slackEmailOf } from "../../src/slack/user-email.ts";
import { ChangeStore } from "../../src/store/changes.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import { APPROVE_ACTION_ID } from "../../src/views/change.ts";
import {
  awsCluster,
  closeChangesHarnesses,
  confirmOk,
  type ChangesHarness as Harness,
  type OpenedView,
  openConfirmation,
  RESIZE_MS,
  startChangesHarness,
  texts,
  waitForCall as waitForCallOn,
} from "../support/changes-harness.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import type { HarnessOptions } from "../support/slack-harness.ts";

/**
 * Every claimed change reaches an end the requester sees: signed Slack requests into the bot,
 * the real Palette client, the simulator (with injected faults) behind it, the fake Slack
 * recording what the bot said. Each case failed on main before the change that made it pass.
 */

const ALICE = "W111";
const BOB = "W222";

/** what a test opened besides the harness, closed after it, the latest first */
const opened: Array<() => Promise<void>> = [];

afterEach(async () => {
  await closeChangesHarnesses();
  for (const close of opened.splice(0).reverse()) await close();
});

function start(
  options: {
    approvals?: string[];
    /** the client's time to Palette's answer (headers and body) */
    answerTimeoutMs?: number;
    bot?: (sim: RunningSimulator, palette: PaletteClient) => Partial<HarnessOptions>;
  } = {},
): Promise<Harness> {
  return startChangesHarness({
    answerTimeoutMs: options.answerTimeoutMs,
    access: { allowChanges: { scale: [ALICE, BOB], delete: [ALICE, BOB] } },
    approvals: options.approvals,
    bot: options.bot,
  });
}

/** `/palette <text>` and the confirmation it opened */
const ask = (h: Harness, text: string, userId = ALICE) =>
  openConfirmation(h, text, { userId, viewPrefix: "VE", timeoutMs: 5_000 });

const confirm = (h: Harness, view: OpenedView, userId = ALICE) => confirmOk(h, view, { userId });

const waitForCall = (fake: FakeSlack, method: string, match: string, timeoutMs = 5_000) =>
  waitForCallOn(fake, method, match, timeoutMs);

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
    const ended = await waitForCall(h.bot.fake, "chat.update", "not seen in Palette");
    expect(ended).toContain("was not sent again");
    // it says what the bot saw, not more: a paused sender's write may still land
    expect(ended).toContain("look in Palette before asking again");
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
