import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { silentLogger } from "../../../src/log.ts";
import { isChannelDigestPost } from "../../../src/model/channel-digest.ts";
import { createSender } from "../../../src/notify/delivery/outbox-sender.ts";
import type { SlackPoster } from "../../../src/notify/delivery/slack-port.ts";
import { createDigestJob } from "../../../src/notify/digest/channel-digest-job.ts";
import { DigestStore } from "../../../src/store/digests.ts";
import { SnapshotStore } from "../../../src/store/snapshots.ts";
import type { SqlDb } from "../../../src/store/sql.ts";
import { SubscriptionStore } from "../../../src/store/subscriptions.ts";
import { checkSlackLimits } from "../../../src/views/limits.ts";
import { fakeDigestScheduler } from "../../support/fake-digest-scheduler.ts";
import { blocksText } from "../../support/reply-text.ts";
import { openMemoryDb } from "../../support/store.ts";

// 2026-03-10 09:00 in Berlin (CET) is 08:00 UTC
const BEFORE_NINE = Date.parse("2026-03-10T07:59:00.000Z");
const AFTER_NINE = Date.parse("2026-03-10T08:00:30.000Z");

async function setup(subscribed = true) {
  const db = await openMemoryDb();
  const clock = new ManualClock(BEFORE_NINE);
  const cron = fakeDigestScheduler();
  let woken = 0;
  const job = createDigestJob({
    db,
    clock,
    logger: silentLogger,
    scheduler: cron.scheduler,
    onCommitted: () => {
      woken += 1;
    },
  });
  if (subscribed) {
    await new SubscriptionStore(db, clock).add({ channel: "C1", kind: "all", createdBy: "U111" });
  }
  await new SnapshotStore(db).replace(
    "p1",
    new Map(),
    [
      {
        uid: "a",
        name: "<!channel>",
        project: "p1",
        state: "Running",
        health: "Healthy",
        tags: [],
      },
    ],
    "2026-03-01T00:00:00.000Z",
  );
  await new DigestStore(db).set({
    channel: "C1",
    cadence: "daily",
    hour: 9,
    minute: 0,
    timeZone: "Europe/Berlin",
    setBy: "U111",
    // set after the 9th's 09:00: the first one owed is the 10th's
    setAt: "2026-03-09T12:00:00.000Z",
  });
  return { db, clock, cron, job, woken: () => woken };
}

const outbox = async (db: SqlDb) =>
  (await db.all("SELECT channel, kind, payload FROM notify_outbox ORDER BY id")) as Array<{
    channel: string;
    kind: string;
    payload: string;
  }>;

describe("the digest job", () => {
  it("arms one node-cron timer per schedule, in the schedule's time zone", async () => {
    const s = await setup();
    await s.job.start();
    expect(s.cron.live().map((t) => `${t.cron}|${t.timeZone}`)).toEqual([
      "0 9 * * *|Europe/Berlin",
    ]);
    // a change re-arms it; turning the digest off disarms it
    await new DigestStore(s.db).set({
      channel: "C1",
      cadence: "weekly",
      weekday: 1,
      hour: 8,
      minute: 30,
      timeZone: "UTC",
      setBy: "U111",
      setAt: new Date(BEFORE_NINE).toISOString(),
    });
    await s.job.sync();
    expect(s.cron.live().map((t) => `${t.cron}|${t.timeZone}`)).toEqual(["30 8 * * 1|UTC"]);
    await new DigestStore(s.db).remove("C1");
    await s.job.sync();
    expect(s.cron.live()).toEqual([]);
  });

  it("queues the digest once when 09:00 passes, however many ticks look", async () => {
    const s = await setup();
    await s.job.start();
    expect(await outbox(s.db)).toEqual([]);
    await s.cron.fire();
    expect(await outbox(s.db)).toEqual([]);

    s.clock.set(AFTER_NINE);
    await s.cron.fire();
    await s.cron.fire();
    expect(await s.job.runDue()).toBe(0);
    const rows = await outbox(s.db);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ channel: "C1", kind: "post" });
    const payload = JSON.parse(rows[0]!.payload) as unknown;
    expect(isChannelDigestPost(payload)).toBe(true);
    expect(payload).toMatchObject({
      text: expect.stringContaining("Daily digest: 1 clusters"),
      channelDigest: { channel: "C1", cadence: "daily", preview: false, total: 1 },
    });
    expect(s.woken()).toBe(1);
    expect((await new DigestStore(s.db).lastRun("C1"))?.occurrence).toBe(
      "2026-03-10T08:00:00.000Z",
    );

    // the sender renders it as the digest, escaped and within Slack's limits
    const posted: Array<Record<string, unknown>> = [];
    const slack: SlackPoster = {
      async postMessage(message) {
        posted.push(message as unknown as Record<string, unknown>);
        return { ts: `1.${posted.length}` };
      },
      async update() {},
    };
    await createSender({ db: s.db, slack, clock: s.clock, logger: silentLogger }).drainAll(10);
    expect(posted).toHaveLength(1);
    const blocks = posted[0]!.blocks as Parameters<typeof checkSlackLimits>[0];
    expect(checkSlackLimits(blocks)).toEqual([]);
    // the digest's own blocks, not its fallback text in a notice
    expect(blocks[0]).toMatchObject({ type: "header", text: { text: "Daily digest: 1 clusters" } });
    expect(blocksText(blocks)).toContain("By project");
    expect(blocksText(blocks)).not.toContain("<!channel>");
  });

  it("at start, posts the occurrence missed while down, once; a second start posts nothing", async () => {
    const first = await setup();
    first.clock.set(Date.parse("2026-03-13T10:00:00.000Z"));
    await first.job.start();
    expect(await outbox(first.db)).toHaveLength(1);
    expect((await new DigestStore(first.db).lastRun("C1"))?.occurrence).toBe(
      "2026-03-13T08:00:00.000Z",
    );
    void first.job.stop();
    const again = createDigestJob({
      db: first.db,
      clock: first.clock,
      logger: silentLogger,
      scheduler: fakeDigestScheduler().scheduler,
    });
    await again.start();
    expect(await outbox(first.db)).toHaveLength(1);
  });

  it("a channel without subscriptions gets nothing, and the occurrence counts as done", async () => {
    const s = await setup(false);
    s.clock.set(AFTER_NINE);
    await s.job.start();
    expect(await outbox(s.db)).toEqual([]);
    expect((await new DigestStore(s.db).lastRun("C1"))?.occurrence).toBe(
      "2026-03-10T08:00:00.000Z",
    );
  });

  it("stops its timers on stop, and ticks after stop do nothing", async () => {
    const s = await setup();
    await s.job.start();
    const [timer] = s.cron.live();
    await s.job.stop();
    expect(s.cron.live()).toEqual([]);
    s.clock.set(AFTER_NINE);
    timer!.tick();
    expect(await outbox(s.db)).toEqual([]);
  });
});
