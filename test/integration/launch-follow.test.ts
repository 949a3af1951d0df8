import { webApi } from "@slack/bolt";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { ManualClock } from "../../src/clock.ts";
import { LaunchTracker } from "../../src/launch/watch.ts";
import { silentLogger } from "../../src/log.ts";
import { PaletteError } from "../../src/palette/errors.ts";
import { slackClientOptions } from "../../src/slack/app.ts";
import { slackCardSink } from "../../src/slack/launch-card-sink.ts";
import { LaunchStore } from "../../src/store/launches.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import { type FakeCluster, FakePalette } from "../support/fake-palette.ts";
import { type FakeSlack, type RecordedCall, startFakeSlack } from "../support/fake-slack.ts";
import { SAMPLE_ANSWERS } from "../support/launch-answers.ts";
import { type LaunchHarness, startLaunchHarness, stateFor } from "../support/launch-harness.ts";

/**
 * One follower per launch: it posts the launch's one card, edits it a bounded number of times
 * when Slack refuses, and stops following after 3 hours whatever Slack or Palette do. A
 * shutdown never tells the user "Not launched" for a create Palette did (or may have) done.
 */

const TICK_MS = 15_000;
const HOUR = 3600_000;

const isCardOf = (name: string) => (call: RecordedCall) =>
  !call.body.thread_ts && JSON.stringify(call.body.blocks ?? "").includes(name);

function deferred<T>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe("launch follower: bounded card retries, and the 3 h limit always applies", () => {
  let fake: FakeSlack;
  let db: SqlDb;
  let clock: ManualClock;
  let cluster: FakeCluster;
  let palette: FakePalette;
  let store: LaunchStore;
  let id: number;

  beforeAll(async () => {
    fake = await startFakeSlack();
  });
  afterAll(async () => {
    await fake?.close();
  });
  beforeEach(async () => {
    fake.reset();
    clock = new ManualClock(Date.UTC(2026, 2, 1));
    db = await openSqlite(":memory:");
    cluster = {
      uid: "uid-1",
      name: "web-1",
      projectUid: "p1",
      state: "Provisioning",
      provider: "aws",
    };
    palette = new FakePalette([cluster]);
    store = new LaunchStore(db, clock);
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
    id = claim.record.id;
  });
  afterEach(async () => {
    await db.close();
  });

  function tracker(): LaunchTracker {
    return new LaunchTracker({
      db,
      palette,
      sink: slackCardSink(new webApi.WebClient("xoxb-test", slackClientOptions(fake.apiUrl))),
      clock,
      logger: silentLogger,
      consoleUrl: "https://console.example",
    });
  }

  /** the 15 s schedule, run by hand for `ms` of the injected clock */
  async function follow(t: LaunchTracker, ms: number): Promise<void> {
    for (let at = 0; at < ms; at += TICK_MS) {
      clock.advance(TICK_MS);
      await t.tick();
    }
  }

  it("a card Slack refuses to post is tried at most 5 times; the follow still ends at 3 h", async () => {
    fake.on("chat.postMessage", (call) =>
      call.body.thread_ts ? undefined : { body: { ok: false, error: "is_archived" } },
    );
    const t = tracker();
    await follow(t, 2 * HOUR);
    const posts = fake.callsTo("chat.postMessage").length;
    expect(posts).toBeGreaterThanOrEqual(1);
    expect(posts).toBeLessThanOrEqual(5);
    expect((await store.get(id))?.done).toBe(false);

    await follow(t, HOUR + TICK_MS);
    const record = await store.get(id);
    expect(record?.done).toBe(true);
    // the name is free again, and nothing more is asked of Palette or Slack
    expect(
      (
        await store.reserve({
          submissionKey: "slack:V2",
          projectUid: "p1",
          provider: "aws",
          name: "web-1",
          requester: "U123",
          channel: "C1",
        })
      ).kind,
    ).toBe("reserved");
    const reads = palette.callsTo("getClusterState").length;
    const calls = fake.calls.length;
    await follow(t, 10 * 60_000);
    expect(palette.callsTo("getClusterState").length).toBe(reads);
    expect(fake.calls.length).toBe(calls);
  });

  it("a card Slack refuses to edit is tried at most 5 times; the follow still ends at 3 h", async () => {
    fake.on("chat.update", () => ({ body: { ok: false, error: "message_not_found" } }));
    cluster.state = "Pending";
    const t = tracker();
    await follow(t, TICK_MS);
    expect(fake.callsTo("chat.postMessage")).toHaveLength(1);
    // the cluster moves on; its card cannot be edited (someone deleted the message)
    cluster.state = "Provisioning";
    await follow(t, 2 * HOUR);
    expect(fake.callsTo("chat.postMessage")).toHaveLength(1);
    const edits = fake.callsTo("chat.update").length;
    expect(edits).toBeGreaterThanOrEqual(1);
    expect(edits).toBeLessThanOrEqual(5);

    await follow(t, HOUR + TICK_MS);
    expect((await store.get(id))?.done).toBe(true);
    expect(fake.callsTo("chat.update").length).toBe(edits);
  });

  it("a cluster whose state Palette never answers is followed for 3 h, then let go with a note", async () => {
    palette.failOn(
      "getClusterState",
      new PaletteError("network", 0, undefined, "connection refused", undefined, "GET /v1/x"),
    );
    const t = tracker();
    await follow(t, 3 * HOUR + TICK_MS);
    const record = await store.get(id);
    expect(record?.done).toBe(true);
    const last = fake.callsTo("chat.update").at(-1);
    expect(JSON.stringify(last?.body.blocks)).toContain("stopped following");
  });
});

describe("launch: one card per launch, and a truthful shutdown", () => {
  let h: LaunchHarness;
  let account: string;
  let profile: string;

  beforeEach(async () => {
    h = await startLaunchHarness();
    const { view } = await h.openModal();
    const form = await h.pickProvider(view, "aws");
    account = (await h.suggest(form, "account", ""))[0]!.value;
    profile = (await h.suggest(form, "profile", ""))[0]!.value;
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await h?.close();
  });

  async function submit(name: string) {
    const { view } = await h.openModal();
    const form = await h.pickProvider(view, "aws");
    return h.submit(
      form,
      stateFor("aws", h.project, {
        ...(SAMPLE_ANSWERS.aws as Record<string, string>),
        account,
        profile,
        name,
      }),
    );
  }

  it("the submit's card and a tracker tick at the same moment post exactly one card", async () => {
    let tickDuringPost: Promise<number> | undefined;
    h.bot.fake.on("chat.postMessage", async (call) => {
      if (!tickDuringPost && isCardOf("race-one")(call)) {
        // the schedule fires while Slack is still answering the submit's post
        tickDuringPost = h.launch.tracker.tick();
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      return undefined;
    });
    const answer = await submit("race-one");
    expect(answer.body.response_action).toBeUndefined();
    const record = await h.waitForCard("race-one");
    await h.bot.fake.waitFor("chat.postMessage", 1);
    await vi.waitFor(() => expect(tickDuringPost).toBeDefined());
    await tickDuringPost;
    await h.launch.tracker.tick();
    const cards = h.bot.fake.callsTo("chat.postMessage").filter(isCardOf("race-one"));
    expect(cards).toHaveLength(1);
    expect((await new LaunchStore(h.bot.db, h.clock).get(record.id))?.cardTs).toBe(
      (await h.waitForCard("race-one")).cardTs,
    );
  });

  it("shutdown during a slow create that Palette then completes: never 'Not launched'", async () => {
    const gate = deferred<void>();
    const real = h.palette.createCluster.bind(h.palette);
    vi.spyOn(h.palette, "createCluster").mockImplementationOnce(async (...args) => {
      await gate.promise;
      return real(...args);
    });
    const answer = await submit("slow-at-shutdown");
    expect(JSON.stringify(answer.body.view)).toContain("Launching");

    // src/app/bot.ts stop(): a bounded wait for launches in flight, the tracker, then the store
    await h.launch.drain(50);
    await h.launch.tracker.stop();
    await h.bot.db.close();

    const updates = h.bot.fake.callsTo("views.update").length;
    gate.resolve();
    const shown = await h.bot.fake.waitFor("views.update", updates + 1);
    const text = JSON.stringify(shown.at(-1)?.body.view);
    expect(h.sim.control.clusters(h.project).some((c) => c.name === "slow-at-shutdown")).toBe(true);
    expect(text).not.toMatch(/Not launched|failed/);
    expect(text).toContain("Palette created cluster");
  });

  it("a create whose answer is lost is not 'Not launched': the tracker finds the cluster by name", async () => {
    const real = h.palette.createCluster.bind(h.palette);
    vi.spyOn(h.palette, "createCluster").mockImplementationOnce(async (...args) => {
      await real(...args);
      // Palette created it, but the connection dropped before its answer arrived
      throw new PaletteError("network", 0, undefined, "socket hang up", undefined, "POST /v1/x");
    });
    const answer = await submit("answer-lost");
    const text = JSON.stringify(answer.body);
    expect(text).not.toMatch(/Not launched|did not answer in time/);
    expect(text).toContain("answer-lost");
    const store = new LaunchStore(h.bot.db, h.clock);
    expect((await store.all()).find((r) => r.name === "answer-lost")?.status).toBe("submitting");

    await h.launch.tracker.tick();
    const record = (await store.all()).find((r) => r.name === "answer-lost");
    expect(record?.status).toBe("created");
    expect(h.bot.fake.callsTo("chat.postMessage").filter(isCardOf("answer-lost"))).toHaveLength(1);
  });
});
