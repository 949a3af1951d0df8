import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { type CardMessage, type CardSink, LaunchTracker } from "../../../src/launch/watch.ts";
import { silentLogger } from "../../../src/log.ts";
import { InFlight } from "../../../src/slack/in-flight.ts";
import { placeholderErrors } from "../../../src/slack/listeners/views/launch-submit.ts";
import { LaunchStore } from "../../../src/store/launches.ts";
import type { SqlDb } from "../../../src/store/sql.ts";
import { launchCard } from "../../../src/views/launch-card.ts";
import { launchNoticeView } from "../../../src/views/launch-modal.ts";
import { FakePalette } from "../../support/fake-palette.ts";
import { openMemoryDb } from "../../support/store.ts";

function deferred<T>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

class RecordingSink implements CardSink {
  readonly updates: CardMessage[] = [];
  readonly replies: string[] = [];
  async post() {
    return { channel: "C1", ts: "1.1" };
  }
  async update(_channel: string, _ts: string, message: CardMessage) {
    this.updates.push(message);
  }
  async reply(_channel: string, _ts: string, text: string) {
    this.replies.push(text);
  }
}

/** a created launch whose card is already posted, so a tick reads its state */
async function seedLaunch(db: SqlDb, clock: ManualClock): Promise<number> {
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
  await store.setCard(claim.record.id, "C1", "1.1");
  return claim.record.id;
}

/** The shared FakePalette, with the cluster's state answered when the test says so. */
class PaletteWithState extends FakePalette {
  constructor(private readonly state: () => Promise<string>) {
    super([]);
  }

  override async getClusterState(): Promise<string | undefined> {
    return this.state();
  }
}

function tracker(db: SqlDb, clock: ManualClock, state: () => Promise<string>, sink: CardSink) {
  const palette = new PaletteWithState(state);
  return new LaunchTracker({
    db,
    palette,
    sink,
    clock,
    logger: silentLogger,
    consoleUrl: "https://console.example",
  });
}

describe("launch shutdown", () => {
  let db: SqlDb | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  it("tracker.stop() waits for a check in progress before resolving", async () => {
    db = await openMemoryDb();
    const clock = new ManualClock(Date.UTC(2026, 2, 1));
    const id = await seedLaunch(db, clock);
    const answer = deferred<string>();
    const asked = deferred<void>();
    const t = tracker(
      db,
      clock,
      () => {
        asked.resolve();
        return answer.promise;
      },
      new RecordingSink(),
    );
    let ticks = 0;
    t.start((task) => {
      void task().then(() => ticks++);
      return { stop() {} };
    });
    // the check is in progress: it has asked Palette and waits for the answer
    await asked.promise;
    let stopped = false;
    const stopping = t.stop().then(() => {
      stopped = true;
    });
    // not a while: a macrotask turn, after every continuation already due has run (a stop that
    // did not wait for the check would have resolved by then)
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(false);
    answer.resolve("Running");
    await stopping;
    expect(stopped).toBe(true);
    // the check's write landed before stop() returned, so closing the store now is safe
    expect((await new LaunchStore(db, clock).get(id))?.lastState).toBe("Running");
  });

  it("tracker.stop() with nothing running resolves at once", async () => {
    db = await openMemoryDb();
    const clock = new ManualClock(0);
    const t = tracker(db, clock, async () => "Running", new RecordingSink());
    await expect(t.stop()).resolves.toBeUndefined();
  });

  it("InFlight.drain waits for tracked work, and for work started meanwhile", async () => {
    const inFlight = new InFlight();
    const first = deferred<string>();
    const second = deferred<string>();
    const out: string[] = [];
    void inFlight.run(async () => {
      out.push(await first.promise);
      // started while the drain is already waiting
      void inFlight.run(async () => {
        out.push(await second.promise);
      });
    });
    expect(inFlight.size).toBe(1);
    const drained = inFlight.drain(5_000);
    first.resolve("a");
    // the first run's continuation has started the second (a run begun while the drain waits)
    await expect.poll(() => inFlight.size === 1 && out.length === 1).toBe(true);
    second.resolve("b");
    await expect(drained).resolves.toBe(true);
    expect(out).toEqual(["a", "b"]);
    expect(inFlight.size).toBe(0);
  });

  it("InFlight.drain gives up after its cap; a rejected job counts as finished", async () => {
    // the cap's timer fires at once: what is measured is that drain gives up, not how fast
    const caps: number[] = [];
    const inFlight = new InFlight({
      setTimeout: (callback, ms) => {
        caps.push(ms);
        queueMicrotask(callback);
        return caps.length;
      },
      clearTimeout: () => {},
    });
    await expect(inFlight.run(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(inFlight.size).toBe(0);
    void inFlight.run(() => new Promise(() => undefined));
    await expect(inFlight.drain(50)).resolves.toBe(false);
    expect(caps).toEqual([50]);
  });
});

describe("launch: Palette text is escaped in mrkdwn", () => {
  let db: SqlDb | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  it("the requester's mention in the thread escapes Palette's state", async () => {
    db = await openMemoryDb();
    const clock = new ManualClock(Date.UTC(2026, 2, 1));
    await seedLaunch(db, clock);
    const sink = new RecordingSink();
    const t = tracker(db, clock, async () => "Failed <!channel>", sink);
    expect(await t.tick()).toBe(1);
    expect(sink.replies).toHaveLength(1);
    expect(sink.replies[0]).not.toContain("<!channel>");
    expect(sink.replies[0]).toContain("&lt;!channel&gt;");
    expect(sink.replies[0]).toContain("<@U123>");
    expect(sink.updates[0]!.text).not.toContain("<!channel>");
  });

  it("the card's notification text escapes state and name", () => {
    for (const state of ["Provisioning <!channel>", "Failed <!here>"]) {
      const card = launchCard({
        name: "a<b>",
        provider: "aws",
        projectUid: "p1",
        requester: "U123",
        state,
        consoleUrl: "https://console.example",
      });
      expect(card.text).not.toMatch(/<!|<b>/);
      expect(card.text).toContain("&lt;!");
      expect(JSON.stringify(card.blocks)).not.toContain("<!");
    }
  });

  it("a notice view escapes its message", () => {
    const view = launchNoticeView("Not launched", ":x: Palette refused: <!channel> & <@U1>");
    const text = JSON.stringify(view.blocks);
    expect(text).not.toContain("<!channel>");
    expect(text).not.toContain("<@U1>");
    expect(text).toContain(":x: Palette refused: &lt;!channel&gt; &amp; &lt;@U1&gt;");
  });

  it("a look-up's stand-in option cannot be submitted", () => {
    expect(
      placeholderErrors({ account: "__slow__", name: "ok", profile: ["p", "__error__"] }),
    ).toEqual({
      account: expect.stringMatching(/type again/),
      profile: expect.stringMatching(/type again/),
    });
    expect(placeholderErrors({ account: "uid-1" })).toEqual({});
  });
});
