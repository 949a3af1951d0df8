import { afterEach, describe, expect, it } from "vitest";
import { HEARTBEAT_EVERY_MS } from "../../src/changes/claim.ts";
import { ManualClock } from "../../src/clock.ts";
import { createLogger } from "../../src/log.ts";
import { STUCK_EXECUTING_MS } from "../../src/model/change.ts";
import { type ChangeRecord, ChangeStore } from "../../src/store/changes.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import { APPROVE_ACTION_ID } from "../../src/views/change.ts";
import { BACKENDS, closeOpened } from "../support/backends.ts";
import {
  awsCluster,
  type ChangesHarness,
  closeChangesHarnesses,
  confirmOk,
  openConfirmation,
  startChangesHarness,
  waitForCall,
} from "../support/changes-harness.ts";
import { ManualTimers } from "../support/manual-timers.ts";
import { apiKeyClient } from "../support/palette-client-helpers.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";

/**
 * Issue 37 item 4: the change sender's fence. The claim is checked before every attempt of the
 * write (a 429's re-send after its Retry-After included), not only before the first, so a claim
 * the lease holder took over while the sender waited sends nothing more; a sender whose last good
 * heartbeat is older than the stuck bound less a margin does not send; and the "not applied"
 * window runs from when the change became unconfirmed, not from the row's last touch (a card
 * recorded late). Signed Slack requests, the simulator, the real client; clocks moved by hand.
 */

const ALICE = "W111";
const BOB = "W222";
/** the scale's write: PUT …/cloudconfigs/aws/{uid}/machinePools/{pool} */
const POOL_WRITES = "/v1/cloudconfigs/aws/";

/** under the tests' own time-out (30 s), so a wait that never ends is named */
const WAIT_BOUND_MS = 25_000;

const sims: ChangesHarness["sim"][] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const sim of sims.splice(0)) sim.control.release();
  await closeChangesHarnesses();
  for (const close of closers.splice(0).reverse()) await close();
  await closeOpened();
});

async function only(h: ChangesHarness): Promise<ChangeRecord | undefined> {
  const [record] = await new ChangeStore(h.bot.db, h.clock).all();
  return record;
}

/**
 * Waits until `done` (the store's rows, a flag a hook sets): nothing here runs on the wall clock
 * (the timers are moved by hand), so the wait is bounded only by how fast this machine gets to it.
 * A deadline of its own (it was 5 s, polled every 5 ms) failed the test on a loaded machine; the
 * test's own time-out still ends a wait that never comes, named here when it does.
 */
async function until(what: string, done: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_BOUND_MS;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`waited ${WAIT_BOUND_MS} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A store whose heartbeat statements fail while `refusing()` (the sender looks dead to the lease
 * holder, as when its replica lost the database for a while); everything else goes through.
 */
function beatsRefusedWhile(inner: SqlDb, refusing: () => boolean): SqlDb {
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === "get") {
        return (sql: string, params?: unknown[]) => {
          if (refusing() && /^UPDATE changes SET heartbeat_at/.test(sql.trim())) {
            return Promise.reject(new Error("connection lost"));
          }
          return target.get(sql, params as never);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** a one-shot signal: `fired` resolves once `fire()` is called */
function signal(): { fired: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const fired = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { fired, fire };
}

describe("the change sender's fence", () => {
  it("a 429's re-send after Retry-After is fenced again: a claim taken over during the wait sends nothing more", async () => {
    const inner = await openSqlite(":memory:");
    closers.push(() => inner.close());
    let refuseBeats = false;
    const db = beatsRefusedWhile(inner, () => refuseBeats);
    const timers = new ManualTimers(new ManualClock(Date.UTC(2026, 10, 25, 12)));
    let harness: ChangesHarness | undefined;
    let patient: ReturnType<typeof apiKeyClient> | undefined;
    const logged: string[] = [];
    const h = await startChangesHarness({
      clock: timers.clock,
      access: { allowChanges: { scale: [ALICE] } },
      bot: (sim, _palette, clock) => {
        // the bot's client re-sends a 429 after its Retry-After, waited on the test's clock;
        // meanwhile the sender's beats fail and the lease holder takes its claim over
        patient = apiKeyClient(sim, {
          clock,
          rateLimit: false,
          retries: 3,
          sleep: async (ms: number) => {
            refuseBeats = true;
            await timers.advance(Math.max(ms, STUCK_EXECUTING_MS + HEARTBEAT_EVERY_MS));
            await harness!.bot.bot.edge.changeFollower.tick();
            refuseBeats = false;
          },
        });
        return {
          timers,
          palette: patient,
          db,
          logger: createLogger("warn", { write: (line: string) => logged.push(line) }),
        };
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
      times: 1,
    });
    await confirmOk(h, view, { userId: ALICE });
    await until(
      "the lease holder's take-over",
      async () => ![undefined, "executing"].includes((await only(h))?.status),
    );
    await waitForCall(h, "chat.postMessage", "unconfirmed");
    await until("the sender to stop", () =>
      logged.some((line) => line.includes("taken over by the lease holder")),
    );
    const puts = h.sim.control.requests().filter((request) => request.method === "PUT");
    // the first try, refused with a 429; no re-send once the claim was the lease holder's
    expect(puts.map((put) => put.status)).toEqual([429]);
    await patient!.close();
  });

  it("a heartbeat that took 100 s to land is too old to send on (the stuck bound is 120 s): nothing sent, the change ends 'Not sent'", async () => {
    const inner = await openSqlite(":memory:");
    closers.push(() => inner.close());
    const timers = new ManualTimers(new ManualClock(Date.UTC(2026, 10, 25, 12)));
    let stallNextBeat = false;
    // the database answers the sender's next heartbeat 100 s late (a stalled store): it lands,
    // but from when it was sent the lease holder may take the claim over in 20 s
    const db = new Proxy(inner, {
      get(target, property, receiver) {
        if (property === "get") {
          return async (sql: string, params?: unknown[]) => {
            if (stallNextBeat && /^UPDATE changes SET heartbeat_at/.test(sql.trim())) {
              stallNextBeat = false;
              const answer = await target.get(sql, params as never);
              timers.clock.advance(100_000);
              return answer;
            }
            return target.get(sql, params as never);
          };
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const h = await startChangesHarness({
      clock: timers.clock,
      access: { allowChanges: { scale: [ALICE] } },
      bot: () => ({ timers, db }),
    });
    sims.push(h.sim);
    awsCluster(h, "slow-beat");
    const view = await openConfirmation(h, "scale slow-beat worker-pool 5", { userId: ALICE });
    stallNextBeat = true;
    await confirmOk(h, view, { userId: ALICE });
    await until("the change's end", async () => (await only(h))?.status === "failed");
    expect((await only(h))?.reason).toContain("Not sent");
    expect(h.writes).toEqual([]);
    await waitForCall(h, "chat.postMessage", "Not sent");
  });

  it("an approval's re-read of Palette beats from the claim: held past the stuck bound, the lease holder leaves it alone; sent once", async () => {
    const timers = new ManualTimers(new ManualClock(Date.UTC(2026, 10, 25, 12)));
    const h = await startChangesHarness({
      clock: timers.clock,
      access: { allowChanges: { scale: [ALICE, BOB] } },
      approvals: { verbs: ["scale"] },
      bot: () => ({ timers }),
    });
    sims.push(h.sim);
    awsCluster(h, "slow-reread");
    const view = await openConfirmation(h, "scale slow-reread worker-pool 5", { userId: ALICE });
    await confirmOk(h, view, { userId: ALICE });
    await until("the request", async () => (await only(h))?.status === "awaiting_approval");
    const id = (await only(h))!.id;
    // the approval's re-read of the pool waits until the test lets it go (Palette slow)
    const letGo = signal();
    let gated = false;
    h.beforeRead = async (request) => {
      if (gated || !request.path.startsWith(POOL_WRITES)) return;
      if ((await only(h))?.status !== "executing") return;
      gated = true;
      await letGo.fired;
    };
    await h.bot.click(APPROVE_ACTION_ID, String(id), { userId: BOB });
    await until("the approval's re-read", () => gated);

    // three minutes of re-reading; the lease holder's round meanwhile
    await timers.advance(STUCK_EXECUTING_MS + 60_000, async () => {
      await until("the heartbeat", async () => {
        const record = await only(h);
        return record?.status !== "executing" || record.heartbeatAt === h.clock.now();
      });
    });
    await h.bot.bot.edge.changeFollower.tick();
    expect((await only(h))?.status).toBe("executing");

    letGo.fire();
    await until("Palette's answer recorded", async () => (await only(h))?.status === "accepted");
    expect(h.writes.filter((write) => write.method === "PUT")).toHaveLength(1);
  });

  it("the 'not applied' window runs from when it became unconfirmed: a card recorded late does not restart it", async () => {
    const h = await startChangesHarness({
      answerTimeoutMs: 400,
      access: { allowChanges: { scale: [ALICE] } },
    });
    awsCluster(h, "lost-answer");
    const view = await openConfirmation(h, "scale lost-answer worker-pool 5", { userId: ALICE });
    // the connection drops after the request went out and before Palette took it
    h.sim.control.addFault({ pathPrefix: POOL_WRITES, method: "PUT", kind: "reset", times: 1 });
    await confirmOk(h, view, { userId: ALICE });
    await waitForCall(h, "chat.postMessage", "unconfirmed");
    await until("unconfirmed with its card", async () => {
      const record = await only(h);
      return record?.status === "unconfirmed" && record.cardTs !== undefined;
    });
    const record = (await only(h))!;
    // 100 s later the card is recorded again (a card delivery Slack answered late)
    h.clock.advance(100_000);
    await new ChangeStore(h.bot.db, h.clock).setCard(
      record.id,
      record.cardChannel!,
      record.cardTs!,
    );
    // 130 s after it became unconfirmed: past the 2-minute window, 30 s after the card
    h.clock.advance(30_000);
    await h.bot.bot.edge.changeFollower.tick();
    expect((await only(h))?.status).toBe("failed");
    const ended = await waitForCall(h, "chat.update", "not seen in Palette");
    expect(ended).toContain("was not sent again");
    // it says what the bot saw, not more: a paused sender's write may still land
    expect(ended).toContain("look in Palette before asking again");
    expect(h.writes.filter((write) => write.method === "PUT")).toHaveLength(1);
  });
});

describe("heartbeats judged by the database's clock, on PostgreSQL", () => {
  it("a sender whose clock is 5 minutes behind the lease holder's: its live claim is not taken for stuck", {
    timeout: POSTGRES_SETUP_TIMEOUT_MS,
  }, async () => {
    const db = await BACKENDS.find((backend) => backend.name === "postgres")!.open();
    // two replicas' clocks, 5 minutes apart; the database keeps its own (PostgreSQL's)
    const sender = new ChangeStore(db, new ManualClock(Date.now() - 5 * 60_000));
    const leader = new ChangeStore(db, new ManualClock(Date.now()));
    const { record } = await sender.create({
      requestKey: "skewed",
      plan: {
        verb: "delete",
        cluster: { uid: "c1", name: "web", projectUid: "p1", cloudType: "aws", state: "Running" },
      },
      requester: "U1",
      channel: "C1",
      status: "executing",
    });
    expect(await sender.beat(record.id)).toBe(true);
    // the lease holder's round: nothing stuck, nothing taken over
    expect(await leader.stuckExecuting(STUCK_EXECUTING_MS)).toEqual([]);
    expect(await leader.takeOver(record.id, STUCK_EXECUTING_MS, "reading")).toBeUndefined();
    // the heartbeat is the database's time, not the sender's
    const beat = (await leader.get(record.id))!.heartbeatAt!;
    expect(Math.abs(beat - Date.now())).toBeLessThan(60_000);
    // a claim whose heartbeat stopped is still found: here one 3 minutes old by the database
    await db.run("UPDATE changes SET heartbeat_at = heartbeat_at - 180000 WHERE id = ?", [
      record.id,
    ]);
    expect((await leader.stuckExecuting(STUCK_EXECUTING_MS)).map((r) => r.id)).toEqual([record.id]);
    expect((await leader.takeOver(record.id, STUCK_EXECUTING_MS, "reading"))?.status).toBe(
      "unconfirmed",
    );
  });
});
