import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import type { Risk } from "../../src/model/risk.ts";
import { createRiskNotifier, NOTICE_RETRY_MS, type RiskNotifier } from "../../src/radar/notices.ts";
import { Secret } from "../../src/secret.ts";
import { createSlackPoster } from "../../src/slack/notify-poster.ts";
import { type LeaderLease, leaseFor, sqliteFileLease } from "../../src/store/lease.ts";
import { RadarStore } from "../../src/store/radar.ts";
import type { SqlDb, SqlExecutor } from "../../src/store/sql.ts";
import { SubscriptionStore } from "../../src/store/subscriptions.ts";
import { BACKENDS, closeOpened } from "../support/backends.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";

/**
 * Issue 37 item 3: a roll-up of risk notices is told once and kept true. A member's end that
 * lands while the roll-up's edit is in flight is edited in its turn (the roll-up has a version,
 * and "shown" is recorded only at the version read); a deposed leader's notifier posts nothing
 * (its writes and posts are fenced by the lease); the notices of a channel no longer subscribed
 * are forgotten instead of holding the retries of every other channel. Through the real store
 * (both backends), the real Slack client and the strict fake Slack; the lease is the real one.
 */

const textOf = (body: Record<string, unknown>) => JSON.stringify(body.blocks ?? body.text);
const certRisk = (days: number): Risk => ({
  kind: "certificates",
  severity: "warning",
  summary: `certificates expire in ${days} days`,
  rank: days * 86_400_000,
});
const backupRisk: Risk = {
  kind: "backup",
  severity: "warning",
  summary: "the last backup failed",
  rank: 0,
};
const cluster = (uid: string, project = "p1") => ({ uid, name: uid, project, tags: [] });

let fake: FakeSlack | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  await closeOpened();
});

describe.each(BACKENDS)(
  "risk roll-ups told once, on $name",
  { timeout: POSTGRES_SETUP_TIMEOUT_MS },
  (backend) => {
    /** `scopes`: the bot token's (without the history scopes no earlier post can be looked up) */
    const setUp = async (scopes?: string[]) => {
      const db = await backend.open();
      const clock = new ManualClock();
      fake = await startFakeSlack({ now: () => clock.now(), ...(scopes ? { scopes } : {}) });
      const subs = new SubscriptionStore(db, clock);
      const notifier = (
        fence?: (tx: SqlExecutor) => Promise<void>,
        sleep: (ms: number) => Promise<void> = async (ms) => clock.advance(ms),
      ): RiskNotifier =>
        createRiskNotifier({
          db,
          slack: createSlackPoster({ token: new Secret("xoxb-test"), apiUrl: fake!.apiUrl }),
          clock,
          logger: silentLogger,
          sleep,
          ...(fence ? { fence } : {}),
        });
      const posts = (channel: string) =>
        fake!.callsTo("chat.postMessage").filter((call) => call.body.channel === channel);
      const updates = (channel: string) =>
        fake!.callsTo("chat.update").filter((call) => call.body.channel === channel);
      const store = new RadarStore(db);
      /** as the sweep does: the risks committed, then the notices synced */
      const hold = async (radar: RiskNotifier, c: ReturnType<typeof cluster>, risks: Risk[]) => {
        await store.replaceRisks(c, risks, clock.now());
        await radar.sync(c, risks);
      };
      return { db, clock, subs, notifier, posts, updates, store, hold };
    };

    it("the last member ending while the roll-up's edit is in flight is edited in its turn: 'no longer holds', then forgotten", async () => {
      const { clock, subs, notifier, posts, updates, store, hold } = await setUp();
      await subs.add({ channel: "CR", kind: "risks", createdBy: "U1" });
      const radar = notifier();
      const members = ["c1", "c2", "c3", "c4", "c5", "c6"].map((uid) => cluster(uid));
      for (const member of members) await hold(radar, member, [certRisk(20)]);
      await radar.flush();
      expect(posts("CR")).toHaveLength(1);
      expect(textOf(posts("CR")[0]!.body)).toContain("6 clusters");

      // five end: the roll-up is stale, one member holds
      for (const member of members.slice(0, 5)) await hold(radar, member, []);
      // its edit is held by Slack; meanwhile the last member ends (a reconciliation's sync beside
      // the sweep's flush)
      const held = signal();
      const editArrived = signal();
      let first = true;
      fake!.on("chat.update", async () => {
        if (!first) return undefined;
        first = false;
        editArrived.fire();
        await held.fired;
        return undefined;
      });
      const flushing = radar.flush();
      await editArrived.fired;
      await hold(radar, members[5]!, []);
      held.fire();
      await flushing;
      expect(textOf(updates("CR")[0]!.body)).toContain("1 cluster");

      // the next look edits the roll-up to "no longer holds for any" and forgets it
      clock.advance(60_000);
      await radar.flush();
      expect(updates("CR")).toHaveLength(2);
      expect(textOf(updates("CR")[1]!.body)).toContain("no longer holds for any of the 6 clusters");
      expect(await store.rollups()).toEqual([]);
      expect(posts("CR")).toHaveLength(1);
    });

    it("a deposed leader's notifier posts no roll-up beside the new leader's, and claims nothing more", async () => {
      const { db, clock, subs, notifier, posts, store, hold } = await setUp();
      await subs.add({ channel: "CR", kind: "risks", createdBy: "U1" });
      const lease = await leaseOf(db);
      const TTL = 30_000;
      const tokenA = (await lease.tryAcquire("replica-a", TTL, clock.now()))!;
      expect(tokenA).toBeDefined();
      // A's waits for the channel's pace can be stalled (a GC pause, SIGSTOP, a stalled node)
      let stall: ReturnType<typeof signal> | undefined;
      const inStall = signal();
      const a = notifier(
        (tx) => lease.assertFenced(tx, tokenA, clock.now()),
        async (ms) => {
          if (stall) {
            inStall.fire();
            await stall.fired;
          }
          clock.advance(ms);
        },
      );
      // three single notices use the channel's burst: A's next post waits for its pace
      for (const uid of ["b1", "b2", "b3"]) await hold(a, cluster(uid), [backupRisk]);
      await a.flush();
      expect(posts("CR")).toHaveLength(3);
      // A claims six notices alike; its flush plans one roll-up and stalls in the pace wait
      const members = ["c1", "c2", "c3", "c4", "c5", "c6"].map((uid) => cluster(uid));
      for (const member of members) await hold(a, member, [certRisk(20)]);
      const resume = signal();
      stall = resume;
      const aFlush = a.flush().catch((error: unknown) => error);
      await inStall.fired;

      // past A's lease and the claims' retry window: B leads and tells the channel
      clock.advance(NOTICE_RETRY_MS + 1_000);
      const tokenB = (await lease.tryAcquire("replica-b", TTL, clock.now()))!;
      expect(tokenB).toBeGreaterThan(tokenA);
      const b = notifier((tx) => lease.assertFenced(tx, tokenB, clock.now()));
      await b.retryDue();
      const rollUpPosts = () =>
        posts("CR").filter((call) => textOf(call.body).includes("6 clusters"));
      expect(rollUpPosts()).toHaveLength(1);
      const bTs = (await store.rollups())[0]?.ts;
      expect(bTs).toBeDefined();

      // A wakes up: its post is refused before it goes out, B's roll-up stands
      stall = undefined;
      resume.fire();
      await aFlush;
      expect(rollUpPosts()).toHaveLength(1);
      expect((await store.rollups()).map((r) => r.ts)).toEqual([bTs]);
      // nor does a deposed A claim anything new
      await a.sync(cluster("c7"), [certRisk(20)]).catch(() => undefined);
      await a.flush().catch(() => undefined);
      expect(posts("CR")).toHaveLength(4);
      expect(await store.notices("c7")).toEqual([]);
    });

    it("a deposed leader's post Slack took is recorded, so the next leader does not post it again (even with no history scope)", async () => {
      // no channels:history: the next leader could not find the post by its marker
      const { db, clock, subs, notifier, posts, store, hold } = await setUp(["chat:write"]);
      await subs.add({ channel: "CR", kind: "risks", createdBy: "U1" });
      const lease = await leaseOf(db);
      const TTL = 30_000;
      const tokenA = (await lease.tryAcquire("replica-a", TTL, clock.now()))!;
      const a = notifier((tx) => lease.assertFenced(tx, tokenA, clock.now()));
      await hold(a, cluster("b1"), [backupRisk]);
      // Slack takes A's post but answers late; meanwhile A's lease runs out and B leads
      const answer = signal();
      const arrived = signal();
      let first = true;
      fake!.on("chat.postMessage", async () => {
        if (!first) return undefined;
        first = false;
        arrived.fire();
        await answer.fired;
        return undefined;
      });
      const aFlush = a.flush().catch((error: unknown) => error);
      await arrived.fired;
      clock.advance(TTL + 1);
      const tokenB = (await lease.tryAcquire("replica-b", TTL, clock.now()))!;
      expect(tokenB).toBeGreaterThan(tokenA);
      answer.fire();
      await aFlush;
      // the post is known: its ts is on the claim
      const [notice] = await store.notices("b1");
      expect(notice?.ts).toBeTruthy();
      // past the claims' retry window, B retries what is due: nothing, the post stands alone
      clock.advance(NOTICE_RETRY_MS + 1_000);
      const tokenNow = (await lease.tryAcquire("replica-b", TTL, clock.now()))!;
      const b = notifier((tx) => lease.assertFenced(tx, tokenNow, clock.now()));
      await b.retryDue();
      await b.flush();
      expect(posts("CR")).toHaveLength(1);
    });

    it("50 notices due in a channel no longer subscribed are forgotten and do not hold another channel's retry", async () => {
      const { clock, subs, notifier, posts, store, hold } = await setUp();
      const gone = await subs.add({ channel: "CX", kind: "risks", project: "px", createdBy: "U1" });
      await subs.add({ channel: "CR", kind: "risks", project: "pz", createdBy: "U1" });
      // Slack says "not now" to every post in CX and to the first in CR
      let crLimited = false;
      fake!.on("chat.postMessage", (call) => {
        if (call.body.channel === "CR" && crLimited) return undefined;
        if (call.body.channel === "CR") crLimited = true;
        return {
          status: 429,
          headers: { "Retry-After": "30" },
          body: { ok: false, error: "ratelimited" },
        };
      });
      const radar = notifier();
      // fifty clusters that sort before the one CR follows, each with its own single notice
      for (let i = 0; i < 50; i += 1) {
        const uid = `a-${String(i).padStart(2, "0")}`;
        await hold(radar, cluster(uid, "px"), [certRisk(20 + i)]);
        await radar.flush();
      }
      await hold(radar, cluster("z-1", "pz"), [certRisk(3)]);
      await radar.flush();
      // every try is recorded, the refused ones too
      expect(posts("CX")).toHaveLength(50);
      expect(posts("CR")).toHaveLength(1);
      // CX unsubscribes; Slack's Retry-After passes
      await subs.remove("CX", gone.id);
      clock.advance(31_000);
      await radar.retryDue();
      expect(posts("CR")).toHaveLength(2);
      expect(textOf(posts("CR")[1]!.body)).toContain("z-1");
      expect(posts("CX")).toHaveLength(50);
      expect((await store.notices("a-00")).length).toBe(0);
    });

    it("a channel paused for a moment keeps its notices: once resumed, its message is edited, not posted again", async () => {
      const { clock, subs, notifier, posts, updates, store, hold } = await setUp();
      await subs.add({ channel: "CR", kind: "risks", createdBy: "U1" });
      const radar = notifier();
      await hold(radar, cluster("c1"), [certRisk(20)]);
      await radar.flush();
      expect(posts("CR")).toHaveLength(1);
      // the next edit: Slack says "not now", so the posted notice waits for its Retry-After
      let limited = true;
      fake!.on("chat.update", () =>
        limited
          ? {
              status: 429,
              headers: { "Retry-After": "30" },
              body: { ok: false, error: "ratelimited" },
            }
          : undefined,
      );
      clock.advance(5_000);
      await hold(radar, cluster("c1"), [certRisk(19)]);
      await radar.flush();
      // the bot is out of the channel for a moment: its subscription paused, then resumed
      await subs.pauseChannel("CR", "not_in_channel");
      await radar.retryDue();
      // kept while paused: the row that knows the message
      const kept = await store.notices("c1");
      expect(kept).toHaveLength(1);
      expect(kept[0]!.ts).toBeTruthy();
      await subs.resumeChannel("CR");
      limited = false;
      clock.advance(60_000);
      await hold(radar, cluster("c1"), [certRisk(19)]);
      await radar.flush();
      await radar.retryDue();
      expect(posts("CR")).toHaveLength(1);
      expect(textOf(updates("CR").at(-1)!.body)).toContain("19 days");
    });

    it("an unsubscribed channel's claims never posted are forgotten, even when no channel is subscribed", async () => {
      const { clock, subs, notifier, posts, store, hold } = await setUp();
      const only = await subs.add({ channel: "CR", kind: "risks", createdBy: "U1" });
      fake!.on("chat.postMessage", () => ({
        status: 429,
        headers: { "Retry-After": "30" },
        body: { ok: false, error: "ratelimited" },
      }));
      const radar = notifier();
      await hold(radar, cluster("c1"), [certRisk(20)]);
      await radar.flush();
      expect(posts("CR")).toHaveLength(1);
      expect(await store.notices("c1")).toHaveLength(1);
      await subs.remove("CR", only.id);
      clock.advance(31_000);
      await radar.retryDue();
      expect(await store.notices("c1")).toHaveLength(0);
      expect(posts("CR")).toHaveLength(1);
    });
  },
);

/** a one-shot signal: `fired` resolves once `fire()` is called */
function signal(): { fired: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const fired = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { fired, fire };
}

/** the lease the replicas share: PostgreSQL's leader_leases, or the SQLite file's own row */
async function leaseOf(db: SqlDb): Promise<LeaderLease> {
  return db.dialect === "postgres" ? leaseFor(db, "singletons") : sqliteFileLease(db, "singletons");
}
