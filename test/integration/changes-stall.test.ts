import { afterEach, describe, expect, it } from "vitest";
import { HEARTBEAT_EVERY_MS } from "../../src/changes/claim.ts";
import { ManualClock } from "../../src/clock.ts";
import { createLogger } from "../../src/log.ts";
import { STUCK_EXECUTING_MS } from "../../src/model/change.ts";
import { type ChangeRecord, ChangeStore } from "../../src/store/changes.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import {
  awsCluster,
  type ChangesHarness,
  changeAuditRows,
  closeChangesHarnesses,
  confirmOk,
  openConfirmation,
  RESIZE_MS,
  startChangesHarness,
  texts,
  waitForCall,
} from "../support/changes-harness.ts";
import { ManualTimers } from "../support/manual-timers.ts";
import { apiKeyClient } from "../support/palette-client-helpers.ts";
import type { HarnessOptions } from "../support/slack-harness.ts";

/**
 * A sender still at work is not taken for a dead one (issue 31, item 4). The sender keeps a
 * heartbeat on its claim while Palette keeps its write waiting (a `hold` fault in the simulator,
 * released by the test, so the stall is as long as the test says however busy the machine);
 * the lease holder's rounds past the old two-minute mark leave it alone; and a sender whose
 * claim was taken over while it stalled sends nothing. Signed Slack requests, the simulator,
 * the clock and the heartbeat's timers moved by hand.
 */

const ALICE = "W111";
/** the scale's write: PUT …/cloudconfigs/aws/{uid}/machinePools/{pool} */
const POOL_WRITES = "/v1/cloudconfigs/aws/";

/** the simulators of this file's harnesses: a held request is let go before they close */
const sims: ChangesHarness["sim"][] = [];

afterEach(async () => {
  for (const sim of sims.splice(0)) sim.control.release();
  await closeChangesHarnesses();
});

async function start(
  timers: ManualTimers,
  bot: Partial<HarnessOptions> = {},
): Promise<ChangesHarness> {
  const h = await startChangesHarness({
    clock: timers.clock,
    access: { allowChanges: { scale: [ALICE] } },
    bot: () => ({ timers, ...bot }),
  });
  sims.push(h.sim);
  return h;
}

async function only(h: ChangesHarness): Promise<ChangeRecord> {
  const [record] = await new ChangeStore(h.bot.db, h.clock).all();
  return record!;
}

async function until(what: string, done: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`waited for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * after each timer task: the heartbeat it started is in the store and the sender has armed its
 * next one (or there is no heartbeat to wait for: the row has none, or it is no longer executing,
 * or beats are being refused). The row shows the beat before the sender hears back and re-arms;
 * a clock moved in that gap would skip the sender's beats, as no live sender's ever are.
 */
function heartbeatLanded(
  h: ChangesHarness,
  timers: ManualTimers,
  refused: () => boolean = () => false,
) {
  return () =>
    until("the heartbeat and its next one armed", async () => {
      if (refused()) return true;
      const record = await only(h);
      if (record.status !== "executing" || record.heartbeatAt === undefined) return true;
      const now = h.clock.now();
      return record.heartbeatAt === now && timers.dueTimes().includes(now + HEARTBEAT_EVERY_MS);
    });
}

const steps = async (h: ChangesHarness) =>
  (await changeAuditRows(h, 100)).reverse().map((row) => `${row.step}:${row.outcome}`);

const cardsFor = (h: ChangesHarness, name: string) =>
  texts(h.bot.fake.callsTo("chat.postMessage")).filter((text) => text.includes(name));

describe("a sender still at work", () => {
  it("stalled on Palette past the old 2-minute mark: one write, one card, its end matching Palette, the audit in order", async () => {
    const timers = new ManualTimers(new ManualClock(Date.UTC(2026, 10, 25, 12)));
    const h = await start(timers);
    awsCluster(h, "slow-put");
    const view = await openConfirmation(h, "scale slow-put worker-pool 5", { userId: ALICE });
    h.sim.control.addFault({ pathPrefix: POOL_WRITES, method: "PUT", kind: "hold", times: 1 });
    await confirmOk(h, view, { userId: ALICE });
    await until("the PUT to reach Palette", () => h.sim.control.held() === 1);

    // six minutes of Palette keeping the write waiting; the lease holder's rounds meanwhile
    for (let round = 0; round < 2; round++) {
      await timers.advance(STUCK_EXECUTING_MS + 60_000, heartbeatLanded(h, timers));
      await h.bot.bot.edge.changeFollower.tick();
      expect((await only(h)).status).toBe("executing");
    }
    expect(cardsFor(h, "slow-put")).toEqual([]);

    // Palette takes it: the sender records it and posts the one card, which follows to the end
    h.sim.control.release();
    await waitForCall(h, "chat.postMessage", "slow-put");
    await until("the card recorded", async () => (await only(h)).cardTs !== undefined);
    await h.bot.bot.edge.changeFollower.tick();
    h.clock.advance(RESIZE_MS + 1_000);
    await h.bot.bot.edge.changeFollower.tick();
    const done = await waitForCall(h, "chat.update", "Scaled");
    expect(done).toContain("5 Running");
    expect(await only(h)).toMatchObject({ status: "done" });
    expect(h.writes.filter((write) => write.method === "PUT")).toHaveLength(1);
    expect(cardsFor(h, "slow-put")).toHaveLength(1);
    const said = texts(h.bot.fake.calls).join("\n");
    expect(said).not.toContain("not seen in Palette");
    expect(said).not.toContain("unconfirmed");
    expect(await steps(h)).toEqual(["request:created", "answer:accepted", "end:done"]);
  });

  it("whose write Palette answers 429 with Retry-After 60 s three times: the lease holder leaves it alone; one write taken, one card, the audit in order", async () => {
    const timers = new ManualTimers(new ManualClock(Date.UTC(2026, 10, 25, 12)));
    let harness: ChangesHarness | undefined;
    let patient: ReturnType<typeof apiKeyClient> | undefined;
    const h = await startChangesHarness({
      clock: timers.clock,
      access: { allowChanges: { scale: [ALICE] } },
      bot: (sim, _palette, clock) => {
        // the bot's client retries a 429 after its Retry-After; the wait runs on the test's
        // clock (the heartbeat's timers with it), and the lease holder runs a round meanwhile
        patient = apiKeyClient(sim, {
          clock,
          rateLimit: false,
          retries: 3,
          sleep: async (ms: number) => {
            await timers.advance(ms, heartbeatLanded(harness!, timers));
            await harness!.bot.bot.edge.changeFollower.tick();
          },
        });
        return { timers, palette: patient };
      },
    });
    harness = h;
    sims.push(h.sim);
    awsCluster(h, "retried-put");
    const view = await openConfirmation(h, "scale retried-put worker-pool 5", { userId: ALICE });
    h.sim.control.clearRequests();
    h.sim.control.addFault({
      pathPrefix: POOL_WRITES,
      method: "PUT",
      kind: "status",
      status: 429,
      retryAfterSec: 60,
      times: 3,
    });
    await confirmOk(h, view, { userId: ALICE });
    await waitForCall(h, "chat.postMessage", "retried-put", 10_000);
    await until("the card recorded", async () => (await only(h)).cardTs !== undefined);
    const puts = h.sim.control.requests().filter((request) => request.method === "PUT");
    expect(puts.map((put) => put.status)).toEqual([429, 429, 429, 204]);
    expect(h.clock.now()).toBeGreaterThanOrEqual(Date.UTC(2026, 10, 25, 12) + 3 * 60_000);
    await h.bot.bot.edge.changeFollower.tick();
    h.clock.advance(RESIZE_MS + 1_000);
    await h.bot.bot.edge.changeFollower.tick();
    await waitForCall(h, "chat.update", "Scaled");
    expect(await only(h)).toMatchObject({ status: "done" });
    expect(cardsFor(h, "retried-put")).toHaveLength(1);
    const said = texts(h.bot.fake.calls).join("\n");
    expect(said).not.toContain("not seen in Palette");
    expect(said).not.toContain("unconfirmed");
    expect(await steps(h)).toEqual(["request:created", "answer:accepted", "end:done"]);
    await patient!.close();
  });

  it("whose claim was taken over while it stalled (its heartbeat refused): sends nothing, and the one card is the lease holder's", async () => {
    const inner = await openSqlite(":memory:");
    let refuseBeats = false;
    // the store refuses the timer's heartbeats while `refuseBeats`: the sender looks dead
    const db = new Proxy(inner, {
      get(target, property, receiver) {
        if (property === "get") {
          return (sql: string, params?: unknown[]) => {
            if (refuseBeats && /^UPDATE changes SET heartbeat_at/.test(sql.trim())) {
              return Promise.reject(new Error("connection lost"));
            }
            return target.get(sql, params as never);
          };
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const timers = new ManualTimers(new ManualClock(Date.UTC(2026, 10, 25, 12)));
    const logged: string[] = [];
    const logger = createLogger("warn", { write: (line: string) => logged.push(line) });
    const h = await start(timers, { db, logger });
    awsCluster(h, "lost-claim");
    const view = await openConfirmation(h, "scale lost-claim worker-pool 5", { userId: ALICE });
    // the sender's read of the pool, just before its write, waits until the test lets it go
    let letGo: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    let gated = false;
    h.beforeRead = async (request) => {
      if (!request.path.startsWith(POOL_WRITES)) return;
      const [record] = await new ChangeStore(inner, h.clock).all();
      if (record?.status !== "executing") return;
      gated = true;
      await gate;
    };
    await confirmOk(h, view, { userId: ALICE });
    await until("the sender's read", () => gated);

    refuseBeats = true;
    await timers.advance(
      STUCK_EXECUTING_MS + 60_000,
      heartbeatLanded(h, timers, () => refuseBeats),
    );
    await h.bot.bot.edge.changeFollower.tick();
    expect((await only(h)).status).toBe("unconfirmed");
    await waitForCall(h, "chat.postMessage", "unconfirmed");

    // the sender wakes: its claim is gone, so its write never goes out
    refuseBeats = false;
    letGo();
    await until(
      "the sender to stop",
      () =>
        h.writes.length > 0 ||
        logged.some((line) => line.includes("taken over by the lease holder before the write")),
    );
    expect(h.writes).toEqual([]);
    expect(cardsFor(h, "lost-claim")).toHaveLength(1);
    expect(await steps(h)).toEqual(["request:created", "reconciled:unconfirmed"]);
    await inner.close();
  });
});
