import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { type CardSink, LaunchTracker } from "../../../src/launch/watch.ts";
import { silentLogger } from "../../../src/log.ts";
import { createDigestJob } from "../../../src/notify/digest/channel-digest-job.ts";
import { DigestStore } from "../../../src/store/digests.ts";
import { LaunchStore } from "../../../src/store/launches.ts";
import { FencedOut } from "../../../src/store/lease.ts";
import type { SqlExecutor } from "../../../src/store/sql.ts";
import { openSqlite } from "../../../src/store/sqlite.ts";
import { SubscriptionStore } from "../../../src/store/subscriptions.ts";
import { FakePalette } from "../../support/fake-palette.ts";

/**
 * Issue 12: the digest job's and the launch tracker's writes carry the leader's fencing token.
 * Here the fence is a switch (the PostgreSQL lease itself: test/unit/store/postgres/fencing.test.ts):
 * once it refuses, the deposed replica's round writes nothing.
 */
function switchFence() {
  const state = { deposed: false, calls: 0 };
  const fence = async (_tx: SqlExecutor) => {
    state.calls += 1;
    if (state.deposed) throw new FencedOut("singletons", 1, 2);
  };
  return { state, fence };
}

describe("fenced singleton rounds", () => {
  it("the digest job claims no occurrence and queues nothing once deposed", async () => {
    const db = await openSqlite(":memory:");
    const clock = new ManualClock(Date.parse("2026-03-10T08:00:30.000Z"));
    await new SubscriptionStore(db, clock).add({ channel: "C1", kind: "all", createdBy: "U1" });
    await new DigestStore(db).set({
      channel: "C1",
      cadence: "daily",
      hour: 9,
      minute: 0,
      timeZone: "Europe/Berlin",
      setBy: "U1",
      setAt: "2026-03-09T12:00:00.000Z",
    });
    const { state, fence } = switchFence();
    const job = createDigestJob({ db, clock, logger: silentLogger, fence });
    state.deposed = true;
    expect(await job.runDue()).toBe(0);
    expect(state.calls).toBe(1);
    expect(await db.all("SELECT * FROM notify_digest_runs")).toEqual([]);
    expect(await db.all("SELECT * FROM notify_outbox")).toEqual([]);
    // the occurrence stays owed: the leader's job (or this one, elected again) queues it
    state.deposed = false;
    expect(await job.runDue()).toBe(1);
  });

  it("the launch tracker's round records no state once deposed; a command's follow is not fenced", async () => {
    const db = await openSqlite(":memory:");
    const clock = new ManualClock(Date.UTC(2026, 2, 1));
    const store = new LaunchStore(db, clock);
    const claim = await store.reserve({
      submissionKey: "slack:V1",
      projectUid: "p1",
      provider: "aws",
      name: "web-1",
      requester: "U123",
      channel: "C1",
    });
    if (claim.kind !== "reserved") throw new Error("not reserved");
    await store.created(claim.record.id, "uid-1");
    const posted: string[] = [];
    const sink: CardSink = {
      async post(channel) {
        posted.push(channel);
        return { channel, ts: "1.1" };
      },
      async update() {},
      async reply() {},
    };
    const palette = new (class extends FakePalette {
      override async getClusterState() {
        return "Running";
      }
    })([]);
    const { state, fence } = switchFence();
    const tracker = new LaunchTracker({
      db,
      palette,
      sink,
      clock,
      logger: silentLogger,
      consoleUrl: "https://console.example",
      fence,
    });
    state.deposed = true;
    // a command's card goes out and is recorded whoever leads
    await tracker.follow(claim.record.id);
    expect(posted).toEqual(["C1"]);
    expect((await store.get(claim.record.id))?.cardTs).toBe("1.1");
    expect(state.calls).toBe(0);
    // the tracker's own round is refused: the launch's state is not written
    await expect(tracker.tick()).rejects.toBeInstanceOf(FencedOut);
    expect(state.calls).toBe(1);
    expect((await store.get(claim.record.id))?.lastState).not.toBe("Running");
    state.deposed = false;
    await tracker.tick();
    expect((await store.get(claim.record.id))?.lastState).toBe("Running");
    await tracker.stop();
  });
});
