import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccessPolicy } from "../../src/access/policy.ts";
import { HEARTBEAT_EVERY_MS } from "../../src/changes/claim.ts";
import { ManualClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { STUCK_EXECUTING_MS } from "../../src/model/change.ts";
import type { PaletteClient } from "../../src/palette/client.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { ChangeStore, standInDatabaseClock } from "../../src/store/changes.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import { BACKENDS, closeOpened } from "../support/backends.ts";
import { awsCluster, type OpenedView, submitConfirmation } from "../support/changes-harness.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import { advanceTogether, ManualTimers } from "../support/manual-timers.ts";
import { apiKeyClient } from "../support/palette-client-helpers.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";

/**
 * Two replicas on one PostgreSQL. Replica A sends a scale, Palette applies it, and A dies before
 * it records Palette's answer (its store refuses the move to `accepted`, then A is stopped). The
 * row stays `executing`; replica B, the lease holder, finds it past the deadline and reconciles
 * it by reading Palette, never by sending it again, to its end on the card the requester sees.
 */

const ALICE = "W111";
const CHANNEL = "C111";
const RESIZE_MS = 4_000;

let sim: RunningSimulator;
let palette: PaletteClient;
let fake: FakeSlack;
let db: SqlDb;
let clock: ManualClock;
const bots: BotHarness[] = [];

/** the store as replica A sees it: the process is gone the moment Palette has answered */
function dyingAfterPalette(inner: SqlDb): SqlDb {
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === "get") {
        return (sql: string, params?: unknown[]) => {
          if (/^UPDATE changes SET status/.test(sql.trim()) && params?.[0] === "accepted") {
            return Promise.reject(new Error("replica killed"));
          }
          return target.get(sql, params as never);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

beforeAll(async () => {
  clock = new ManualClock(Date.UTC(2026, 10, 25, 12));
  sim = await startSimulator({
    clock,
    clusters: 10,
    seed: 9,
    lifecycle: { provisioningMs: RESIZE_MS, deletingMs: RESIZE_MS },
  });
  palette = apiKeyClient(sim, { retries: 0, rateLimit: false });
  fake = await startFakeSlack();
  db = await BACKENDS.find((backend) => backend.name === "postgres")!.open();
  // heartbeats are stamped and judged by the database's clock: here, the test's, moved by hand
  standInDatabaseClock(db, clock);
}, POSTGRES_SETUP_TIMEOUT_MS);

afterAll(async () => {
  sim?.control.release();
  for (const bot of bots) await bot.close();
  await closeOpened();
  await fake?.close();
  await palette?.close();
  await sim?.close();
});

function replica(store: SqlDb, timers?: ManualTimers): Promise<BotHarness> {
  return startBot({
    timers,
    palette,
    fake,
    db: store,
    clock,
    policy: createAccessPolicy({
      allowLaunch: [],
      allowKubeconfig: [],
      allowChanges: { scale: [ALICE] },
      client: { usergroups: { users: { list: async () => ({ ok: true, users: [] }) } } },
      clock,
      logger: silentLogger,
    }),
    changeSchedule: () => ({ stop() {} }),
  });
}

describe("day-2 ends on two replicas", () => {
  it("a replica killed between Palette's answer and `accepted`: the other reconciles it to Scaled, one PUT", async () => {
    const a = await replica(dyingAfterPalette(db));
    const b = await replica(db);
    bots.push(b);
    awsCluster({ sim, project: sim.control.projects()[0]! }, "orphaned-scale");

    await a.command("scale orphaned-scale worker-pool 5", { userId: ALICE, channelId: CHANNEL });
    const [open] = await fake.waitFor("views.open", 1, 10_000);
    const view = open!.body.view as OpenedView;
    sim.control.clearRequests();
    await submitConfirmation({ bot: a }, { ...view, id: "VORPHAN1" }, { userId: ALICE });
    const puts = () => sim.control.requests().filter((request) => request.method === "PUT");
    const deadline = Date.now() + 10_000;
    while (puts().length === 0) {
      if (Date.now() > deadline) throw new Error("replica A never sent the PUT");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // A answers its submit, sends, and dies: its work is over once the bot is stopped
    await a.close();
    const store = new ChangeStore(db, clock);
    const [orphan] = await store.all();
    expect(orphan).toMatchObject({ status: "executing", requester: ALICE });
    expect(orphan!.cardTs).toBeUndefined();

    // before the deadline the lease holder leaves it alone: A may still be on its way
    await b.bot.edge.changeFollower.tick();
    expect((await store.get(orphan!.id))!.status).toBe("executing");

    clock.advance(3 * 60_000);
    await b.bot.edge.changeFollower.tick();
    const texts = () => fake.callsTo("chat.postMessage").map((call) => JSON.stringify(call.body));
    const card = texts().find((text) => text.includes("orphaned-scale"));
    expect(card).toContain("unconfirmed");
    expect(card).toContain(`<@${ALICE}>`);
    await b.bot.edge.changeFollower.tick();
    const updates = fake.callsTo("chat.update").map((call) => JSON.stringify(call.body));
    expect(updates.some((text) => text.includes("Scaled") && text.includes("5 Running"))).toBe(
      true,
    );
    expect(await store.get(orphan!.id)).toMatchObject({ status: "done" });
    expect(puts()).toHaveLength(1);
  });

  it("replica A's PUT stalls past the old 2-minute mark: B leaves it alone; one write, one card, its end matching Palette, the audit in order", async () => {
    const timersA = new ManualTimers(clock);
    const timersB = new ManualTimers(clock);
    const a = await replica(db, timersA);
    const b = await replica(db, timersB);
    bots.push(a, b);
    awsCluster({ sim, project: sim.control.projects()[0]! }, "stalled-scale");
    const opens = fake.callsTo("views.open").length;
    await a.command("scale stalled-scale worker-pool 5", { userId: ALICE, channelId: CHANNEL });
    const open = (await fake.waitFor("views.open", opens + 1, 10_000))[opens]!;
    const view = open.body.view as OpenedView;
    sim.control.clearRequests();
    // Palette keeps the write waiting until the test lets it go
    sim.control.addFault({
      pathPrefix: "/v1/cloudconfigs/aws/",
      method: "PUT",
      kind: "hold",
      times: 1,
    });
    await submitConfirmation({ bot: a }, { ...view, id: "VSTALL1" }, { userId: ALICE });
    const until = async (what: string, done: () => boolean | Promise<boolean>) => {
      const deadline = Date.now() + 10_000;
      while (!(await done())) {
        if (Date.now() > deadline) throw new Error(`waited for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    await until("A's PUT to reach Palette", () => sim.control.held() === 1);
    const store = new ChangeStore(db, clock);
    const stalled = (await store.all()).find((r) => r.plan.cluster.name === "stalled-scale")!;
    // after each timer task, A's heartbeat is in the store and A has armed its next one before
    // time moves on: the row shows the beat before A hears back and re-arms, and a clock moved
    // in that gap would skip A's beats up to the round's end, as no live sender's ever are
    const beatLanded = () =>
      until("A's heartbeat and its next one armed", async () => {
        const row = (await store.get(stalled.id))!;
        if (row.status !== "executing") return true;
        const now = clock.now();
        return row.heartbeatAt === now && timersA.dueTimes().includes(now + HEARTBEAT_EVERY_MS);
      });

    // six minutes of waiting on Palette; B, the lease holder, runs its rounds meanwhile
    for (let round = 0; round < 2; round++) {
      await advanceTogether([timersA, timersB], STUCK_EXECUTING_MS + 60_000, beatLanded);
      await b.bot.edge.changeFollower.tick();
      expect((await store.get(stalled.id))!.status).toBe("executing");
    }
    const cards = () =>
      fake
        .callsTo("chat.postMessage")
        .map((call) => JSON.stringify(call.body))
        .filter((text) => text.includes("stalled-scale"));
    expect(cards()).toEqual([]);

    sim.control.release();
    await until("A's card", async () => (await store.get(stalled.id))!.cardTs !== undefined);
    await b.bot.edge.changeFollower.tick();
    clock.advance(RESIZE_MS + 1_000);
    await b.bot.edge.changeFollower.tick();
    expect(await store.get(stalled.id)).toMatchObject({ status: "done" });
    const updates = fake
      .callsTo("chat.update")
      .map((call) => JSON.stringify(call.body))
      .filter((text) => text.includes("stalled-scale"));
    expect(updates.some((text) => text.includes("Scaled") && text.includes("5 Running"))).toBe(
      true,
    );
    const said = fake.calls.map((call) => JSON.stringify(call.body)).join("\n");
    expect(said).not.toContain("not seen in Palette");
    expect(cards()).toHaveLength(1);
    expect(sim.control.requests().filter((request) => request.method === "PUT")).toHaveLength(1);
    const steps = (await a.audit.recent(100))
      .filter((row) => row.action === "change" && row.changeId === stalled.id)
      .reverse()
      .map((row) => `${row.step}:${row.outcome}`);
    expect(steps).toEqual(["request:created", "answer:accepted", "end:done"]);
  });
});
