import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.ts";
import { DEFAULT_RISK_SETTINGS } from "../../src/model/risk.ts";
import { ROLLUP_OVER } from "../../src/model/risk-rollup.ts";
import { createPaletteClient } from "../../src/palette/client.ts";
import { createUndiciTransport, type WireRequest } from "../../src/palette/http.ts";
import { createRiskNotifier, NOTICE_RETRY_MS } from "../../src/radar/notices.ts";
import { CALLS_PER_CLUSTER, createRadar, type Radar } from "../../src/radar/sweep.ts";
import { Secret } from "../../src/secret.ts";
import { createSlackPoster } from "../../src/slack/notify-poster.ts";
import { RadarStore } from "../../src/store/radar.ts";
import { BACKENDS } from "../support/backends.ts";
import { type NotifyHarness, startNotifyHarness } from "../support/notify-harness.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";

/**
 * The radar (issue 28) against the simulator, the real client, poller and store and the fake
 * Slack, with the clock injected: the sweep reads each cluster at RADAR_CALLS_PER_MINUTE, and
 * each risk becomes one notice in a `risks` channel, edited as it changes, said when gone.
 */

const DAY = 86_400_000;
let h: NotifyHarness | undefined;
let radar: Radar | undefined;
afterEach(async () => {
  await radar?.stop();
  radar = undefined;
  await h?.close();
  h = undefined;
});

/**
 * Every radar test runs at tenant scope (PALETTE_PROJECTS empty, the default: the poll's scope
 * column is "" and the project is only in project_uid) and with PALETTE_PROJECTS set.
 */
const RADAR_SCOPES = [
  { scope: "tenant scope", tenant: true },
  { scope: "PALETTE_PROJECTS set", tenant: false },
];
let tenant = true;
/** PALETTE_PROJECTS as the radar and the poll are given it */
const projectsOf = (harness: NotifyHarness): string[] =>
  tenant ? [] : harness.sim.control.projects();

function startRadar(harness: NotifyHarness, callsPerMinute = 600): Radar {
  return createRadar({
    palette: harness.palette,
    db: harness.db,
    clock: harness.clock,
    logger: silentLogger,
    projects: projectsOf(harness),
    callsPerMinute,
    settings: DEFAULT_RISK_SETTINGS,
    // the pacing waits move the test's clock, never the wall clock
    sleep: async (ms) => harness.clock.advance(ms),
    notifier: createRiskNotifier({
      db: harness.db,
      slack: createSlackPoster({ token: new Secret("xoxb-test"), apiUrl: harness.fake.apiUrl }),
      clock: harness.clock,
      logger: silentLogger,
      sleep: async (ms) => harness.clock.advance(ms),
    }),
  });
}

/** every cluster far from any risk, so a test sees only what it sets up */
function quietFleet(harness: NotifyHarness): void {
  for (const cluster of harness.sim.control.clusters()) {
    harness.sim.control.setCertificateExpiry(cluster.uid, harness.clock.now() + 200 * DAY);
    harness.sim.control.setProfileUpdates(cluster.uid, []);
  }
}

const textOf = (body: Record<string, unknown>) => JSON.stringify(body.blocks ?? body.text);

const CASES = BACKENDS.flatMap((backend) =>
  RADAR_SCOPES.map((scope) => ({ ...scope, backend, name: backend.name })),
);

describe.each(CASES)("on $name at $scope", { timeout: POSTGRES_SETUP_TIMEOUT_MS }, (c) => {
  const { backend } = c;
  const harness = async (): Promise<NotifyHarness> => {
    tenant = c.tenant;
    return startNotifyHarness({
      openDb: await backend.database(),
      ...(c.tenant ? { pollProjects: [] } : {}),
    });
  };

  it("a certificate 20 days from expiry is one notice in a risks channel, and nothing more while it holds", async () => {
    h = await harness();
    await h.subs.add({ channel: "CR", kind: "risks", createdBy: "U1" });
    await h.subs.add({ channel: "CC", kind: "all", createdBy: "U1" });
    await h.cycle();
    quietFleet(h);
    const target = h.sim.control.clusters()[3]!;
    h.sim.control.setCertificateExpiry(target.uid, h.clock.now() + 20 * DAY);
    radar = startRadar(h);
    const fleet = h.sim.control.clusters().length;
    expect(await radar.sweep(fleet)).toBe(fleet);
    const notices = h.posts("CR");
    expect(notices).toHaveLength(1);
    expect(textOf(notices[0]!)).toContain(target.name);
    expect(textOf(notices[0]!)).toContain("expire in 20 days");
    expect(textOf(notices[0]!)).toContain("Renew certificates");
    // the poll's channel hears none of it, the risks channel nothing more on a second sweep
    const cardsBefore = h.posts("CC").length;
    h.clock.advance(60_000);
    await radar.sweep(fleet);
    expect(h.posts("CR")).toHaveLength(1);
    expect(h.updates("CR")).toHaveLength(0);
    expect(h.posts("CC")).toHaveLength(cardsBefore);
    // a day later it says 19 days: the same message, edited in place
    h.clock.advance(DAY);
    await radar.sweep(fleet);
    expect(h.posts("CR")).toHaveLength(1);
    expect(h.updates("CR")).toHaveLength(1);
    expect(textOf(h.updates("CR")[0]!)).toContain("expire in 19 days");
    // renewed out of band: the notice says it is gone, once
    h.sim.control.setCertificateExpiry(target.uid, h.clock.now() + 365 * DAY);
    await radar.sweep(fleet);
    await radar.sweep(fleet);
    expect(h.posts("CR")).toHaveLength(1);
    expect(h.updates("CR")).toHaveLength(2);
    expect(textOf(h.updates("CR")[1]!)).toContain("no longer holds");
    expect(await new RadarStore(h.db).risks()).toEqual([]);
  });

  it("a failed last backup is one risk; a repave pending past REPAVE_WARN_HOURS is one too", async () => {
    h = await harness();
    await h.subs.add({ channel: "CR", kind: "risks", createdBy: "U1" });
    await h.cycle();
    quietFleet(h);
    const [backedUp, repaved] = h.sim.control.clusters();
    h.sim.control.setBackupLocation(backedUp!.uid, "s3-nightly");
    h.sim.control.setBackupRuns(backedUp!.uid, "0 3 * * *", [
      { name: "nightly-2", state: "Failed", at: h.clock.now() - DAY / 2, msg: "bucket <gone>" },
      { name: "nightly-1", state: "Completed", at: h.clock.now() - DAY - DAY / 2 },
    ]);
    h.sim.control.setRepavePending(repaved!.uid, ["pack values changed"]);
    radar = startRadar(h);
    await radar.readRepaves();
    const fleet = h.sim.control.clusters().length;
    await radar.sweep(fleet);
    const store = new RadarStore(h.db);
    const risks = await store.risks();
    expect(risks.map((r) => [r.clusterUid, r.risk.kind])).toEqual([[backedUp!.uid, "backup"]]);
    expect(risks[0]!.risk.summary).toBe("last backup Failed: bucket <gone>");
    expect(h.posts("CR")).toHaveLength(1);
    expect(textOf(h.posts("CR")[0]!)).toContain("bucket &lt;gone&gt;");
    expect(textOf(h.posts("CR")[0]!)).toContain("Back up now");
    // a day and an hour later, the repave still pending in the list is a risk too
    h.clock.advance(25 * 3_600_000);
    await radar.readRepaves();
    const kinds = (await store.risks()).map((r) => r.risk.kind).sort();
    expect(kinds).toEqual(["backup", "repave"]);
    expect(h.posts("CR")).toHaveLength(2);
    expect(textOf(h.posts("CR")[1]!)).toContain("Approve repave");
  });

  it("Palette failing a read keeps the last reading and its risk; Slack refusing the channel posts again later, once", async () => {
    h = await harness();
    await h.subs.add({ channel: "CR", kind: "risks", createdBy: "U1" });
    await h.cycle();
    quietFleet(h);
    const target = h.sim.control.clusters()[2]!;
    h.sim.control.setCertificateExpiry(target.uid, h.clock.now() + 10 * DAY);
    // Slack refuses the channel first: nothing is claimed for good
    let refuse = true;
    h.fake.on("chat.postMessage", (call) => {
      if (!refuse || call.body.channel !== "CR") return undefined;
      refuse = false;
      return { body: { ok: false, error: "not_in_channel" } };
    });
    radar = startRadar(h);
    const fleet = h.sim.control.clusters().length;
    await radar.sweep(fleet);
    expect(h.posts("CR")).toHaveLength(1); // the refused one
    const store = new RadarStore(h.db);
    expect((await store.risks()).map((r) => r.risk.kind)).toEqual(["certificates"]);
    // Palette answers 500 to the certificates now: the risk is kept, not "gone"
    h.sim.control.addFault({
      pathPrefix: `/v1/spectroclusters/${target.uid}/k8certificates`,
      kind: "status",
      status: 500,
    });
    h.clock.advance(60_000);
    await radar.sweep(fleet);
    expect((await store.risks()).map((r) => r.risk.kind)).toEqual(["certificates"]);
    expect(
      h.sim.control.requests().filter((r) => r.path.endsWith("/k8certificates") && r.status === 500)
        .length,
    ).toBeGreaterThan(0);
    // the channel takes the bot back: the notice goes out once, and only once
    expect(h.posts("CR")).toHaveLength(2);
    expect(textOf(h.posts("CR")[1]!)).toContain(target.name);
    h.sim.control.clearFaults();
    await radar.sweep(fleet);
    expect(h.posts("CR")).toHaveLength(2);
    expect(h.updates("CR").filter((u) => textOf(u).includes("no longer holds"))).toHaveLength(0);
  });

  it("Slack failing the post (a 500: it may or may not have posted) does not lose the notice: tried again after a while, once", async () => {
    h = await harness();
    await h.subs.add({ channel: "CR", kind: "risks", createdBy: "U1" });
    await h.cycle();
    quietFleet(h);
    const target = h.sim.control.clusters()[2]!;
    h.sim.control.setCertificateExpiry(target.uid, h.clock.now() + 10 * DAY);
    let failing = true;
    h.fake.on("chat.postMessage", (call) => {
      if (!failing || call.body.channel !== "CR") return undefined;
      failing = false;
      return { status: 500, body: { ok: false, error: "internal_error" } };
    });
    radar = startRadar(h);
    const fleet = h.sim.control.clusters().length;
    await radar.sweep(fleet);
    expect(h.posts("CR")).toHaveLength(1); // the failed one
    // a pass soon after leaves it alone: the answer may still have been a post
    h.clock.advance(60_000);
    await radar.sweep(fleet);
    expect(h.posts("CR")).toHaveLength(1);
    // after NOTICE_RETRY_MS with no ts recorded, the notice is posted again, and only once
    h.clock.advance(NOTICE_RETRY_MS);
    await radar.sweep(fleet);
    expect(h.posts("CR")).toHaveLength(2);
    expect(textOf(h.posts("CR")[1]!)).toContain(target.name);
    h.clock.advance(NOTICE_RETRY_MS);
    await radar.sweep(fleet);
    expect(h.posts("CR")).toHaveLength(2);
  });

  it("a notice Slack posted but whose answer was lost is found when tried again, not posted twice", async () => {
    h = await harness();
    await h.subs.add({ channel: "CR", kind: "risks", createdBy: "U1" });
    await h.cycle();
    quietFleet(h);
    const target = h.sim.control.clusters()[2]!;
    h.sim.control.setCertificateExpiry(target.uid, h.clock.now() + 10 * DAY);
    let lost = true;
    h.fake.on("chat.postMessage", (call) => {
      if (!lost || call.body.channel !== "CR") return undefined;
      lost = false;
      // Slack posted it; a gateway between answered 504 instead
      return { status: 504, body: { ok: false, error: "gateway_timeout" }, posted: true };
    });
    radar = startRadar(h);
    const fleet = h.sim.control.clusters().length;
    await radar.sweep(fleet);
    expect(h.fake.messages("CR")).toHaveLength(1);
    // after NOTICE_RETRY_MS with no ts recorded, the notice is tried again: found, not re-posted
    h.clock.advance(NOTICE_RETRY_MS);
    await radar.sweep(fleet);
    h.clock.advance(NOTICE_RETRY_MS);
    await radar.sweep(fleet);
    expect(h.fake.messages("CR")).toHaveLength(1);
    expect(textOf(h.fake.messages("CR")[0]! as unknown as Record<string, unknown>)).toContain(
      target.name,
    );
    expect(h.posts("CR")).toHaveLength(1);
  });

  it("a channel subscribed to risks project:<p> hears its project's risks and no other's", async () => {
    h = await harness();
    const [p1, p2] = h.sim.control.projects();
    await h.subs.add({ channel: "CP1", kind: "risks", project: p1!, createdBy: "U1" });
    await h.subs.add({ channel: "CP2", kind: "risks", project: p2!, createdBy: "U1" });
    await h.cycle();
    quietFleet(h);
    const target = h.sim.control.clusters(p1)[1]!;
    h.sim.control.setCertificateExpiry(target.uid, h.clock.now() + 10 * DAY);
    radar = startRadar(h);
    await radar.sweep(h.sim.control.clusters().length);
    expect(h.posts("CP1")).toHaveLength(1);
    expect(textOf(h.posts("CP1")[0]!)).toContain(target.name);
    expect(h.posts("CP2")).toHaveLength(0);
    const stored = await new RadarStore(h.db).risks(p1);
    expect(stored.map((r) => [r.clusterUid, r.project])).toEqual([[target.uid, p1]]);
  });

  it("a deleted cluster's risks end: its notice says no longer holds, and its rows go", async () => {
    h = await harness();
    await h.subs.add({ channel: "CR", kind: "risks", createdBy: "U1" });
    await h.cycle();
    quietFleet(h);
    const [first, second] = h.sim.control.clusters().filter((c) => c.state === "Running");
    h.sim.control.setCertificateExpiry(first!.uid, h.clock.now() + 10 * DAY);
    h.sim.control.setCertificateExpiry(second!.uid, h.clock.now() + 12 * DAY);
    radar = startRadar(h);
    const fleet = h.sim.control.clusters().length;
    await radar.sweep(fleet);
    expect(h.posts("CR")).toHaveLength(2);
    const store = new RadarStore(h.db);
    expect(await store.risks()).toHaveLength(2);
    const rowsOf = async (uid: string) => {
      let n = 0;
      for (const table of ["radar_readings", "radar_risks", "radar_notices"]) {
        const row = await h!.db.get<{ n: number | string }>(
          `SELECT COUNT(*) AS n FROM ${table} WHERE cluster_uid = ?`,
          [uid],
        );
        n += Number(row?.n ?? 0);
      }
      return n;
    };

    // deleted before the poll saw it: the radar's read answers 404
    h.sim.control.setState(first!.uid, "Deleted");
    h.clock.advance(DAY);
    await radar.sweep(fleet);
    const goneEdit = h.updates("CR").filter((u) => textOf(u).includes("no longer holds"));
    expect(goneEdit).toHaveLength(1);
    expect(textOf(goneEdit[0]!)).toContain(first!.name);
    expect((await store.risks()).map((r) => r.clusterUid)).toEqual([second!.uid]);
    // then the poll lists it Deleted: the radar forgets it
    h.poller.requestReconcile();
    await h.cycle();
    await radar.readRepaves();
    expect(await rowsOf(first!.uid)).toBe(0);

    // deleted and seen so by the poll first: the sweep never reads it again, yet its risk ends
    h.sim.control.setState(second!.uid, "Deleted");
    h.poller.requestReconcile();
    await h.cycle();
    await radar.readRepaves();
    await radar.sweep(fleet);
    const ends = h.updates("CR").filter((u) => textOf(u).includes("no longer holds"));
    expect(ends).toHaveLength(2);
    expect(textOf(ends[1]!)).toContain(second!.name);
    expect(await store.risks()).toEqual([]);
    expect(await rowsOf(second!.uid)).toBe(0);
    // nothing more is said of either
    const said = h.updates("CR").length;
    await radar.readRepaves();
    await radar.sweep(fleet);
    expect(h.updates("CR")).toHaveLength(said);
    expect(h.posts("CR")).toHaveLength(2);
  });

  it.runIf(!c.tenant)(
    "a project taken out of PALETTE_PROJECTS: its rows go, without a word to Slack",
    async () => {
      h = await harness();
      const [p1, p2] = h.sim.control.projects();
      await h.subs.add({ channel: "CR", kind: "risks", createdBy: "U1" });
      await h.cycle();
      quietFleet(h);
      const inP2 = h.sim.control.clusters(p2)[0]!;
      h.sim.control.setCertificateExpiry(inP2.uid, h.clock.now() + 10 * DAY);
      h.sim.control.setRepavePending(inP2.uid, ["pack values changed"]);
      radar = startRadar(h);
      await radar.readRepaves();
      await radar.sweep(h.sim.control.clusters().length);
      expect(h.posts("CR")).toHaveLength(1);
      await radar.stop();
      // the bot restarts watching p1 only
      radar = createRadar({
        palette: h.palette,
        db: h.db,
        clock: h.clock,
        logger: silentLogger,
        projects: [p1!],
        callsPerMinute: 600,
        settings: DEFAULT_RISK_SETTINGS,
        sleep: async (ms) => h!.clock.advance(ms),
        notifier: createRiskNotifier({
          db: h.db,
          slack: createSlackPoster({ token: new Secret("xoxb-test"), apiUrl: h.fake.apiUrl }),
          clock: h.clock,
          logger: silentLogger,
          sleep: async (ms) => h!.clock.advance(ms),
        }),
      });
      await radar.readRepaves();
      for (const table of ["radar_readings", "radar_risks", "radar_notices", "radar_repaves"]) {
        const row = await h.db.get<{ n: number | string }>(
          `SELECT COUNT(*) AS n FROM ${table} WHERE project = ? OR cluster_uid = ?`.replace(
            table === "radar_notices" ? "project = ? OR " : "",
            "",
          ),
          table === "radar_notices" ? [inP2.uid] : [p2!, inP2.uid],
        );
        expect(Number(row?.n), table).toBe(0);
      }
      expect(h.updates("CR")).toHaveLength(0);
      expect(h.posts("CR")).toHaveLength(1);
    },
  );

  it("RADAR_CALLS_PER_MINUTE counts Palette's requests, retries included: 500s on every certificates read stay within it", async () => {
    h = await harness();
    await h.cycle();
    quietFleet(h);
    // every certificates read fails: the client tries each one again (retries: 1 here, 3 by default)
    for (const cluster of h.sim.control.clusters()) {
      h.sim.control.addFault({
        pathPrefix: `/v1/spectroclusters/${cluster.uid}/k8certificates`,
        kind: "status",
        status: 500,
      });
    }
    radar = createRadar({
      palette: h.palette,
      db: h.db,
      clock: h.clock,
      logger: silentLogger,
      projects: projectsOf(h),
      callsPerMinute: 30,
      settings: DEFAULT_RISK_SETTINGS,
      sleep: async (ms) => h!.clock.advance(ms),
    });
    h.sim.control.clearRequests();
    const started = h.clock.now();
    const fleet = h.sim.control.clusters().length;
    await radar.sweep(fleet);
    const requests = h.sim.control
      .requests()
      .filter((r) => /k8certificates|profileUpdates|features\/backup/.test(r.path));
    // each certificates call was tried twice: four requests a cluster, all paced
    expect(requests.length).toBe(fleet * (CALLS_PER_CLUSTER + 1));
    expect(radar.stats().sweepRequests).toBe(requests.length);
    // 30 a minute: the n-th request goes 2 s after the one before, whatever call it belongs to
    expect(h.clock.now() - started).toBeGreaterThanOrEqual((requests.length - 1) * 2_000);
  });

  it("once stop() is called (a deposed leader) the sweep sends nothing more, not even a retry", async () => {
    h = await harness();
    await h.cycle();
    quietFleet(h);
    const harnessNow = h;
    const sent: string[] = [];
    const inner = createUndiciTransport(h.sim.url);
    const palette = createPaletteClient({
      baseUrl: h.sim.url,
      credentials: { kind: "apiKey", apiKey: new Secret(h.sim.credentials.apiKey) },
      logger: silentLogger,
      rateLimit: false,
      retries: 3,
      backoff: { baseMs: 1, maxMs: 5 },
      transport: {
        send(request: WireRequest) {
          sent.push(request.path);
          // the lease is lost while the first certificates read is in flight, and it fails
          if (request.path.endsWith("/k8certificates") && sent.length === 1) {
            void radar?.stop();
            return Promise.resolve({ status: 500, headers: {}, body: Buffer.from("{}") });
          }
          return inner.send(request);
        },
        close: () => inner.close(),
      },
    });
    radar = createRadar({
      palette,
      db: h.db,
      clock: h.clock,
      logger: silentLogger,
      projects: projectsOf(h),
      callsPerMinute: 600,
      settings: DEFAULT_RISK_SETTINGS,
      sleep: async (ms) => harnessNow.clock.advance(ms),
    });
    await radar.sweep(h.sim.control.clusters().length);
    expect(sent).toHaveLength(1);
    await palette.close();
  });

  it("a reconciliation's pending-repave list re-evaluates only the clusters whose repave risk changes", async () => {
    h = await harness();
    await h.subs.add({ channel: "CR", kind: "risks", createdBy: "U1" });
    await h.cycle();
    quietFleet(h);
    const pending = h.sim.control.clusters().slice(0, 10);
    for (const cluster of pending) h.sim.control.setRepavePending(cluster.uid, ["pack changed"]);
    const harnessNow = h;
    let commits = 0;
    // the radar's store, counting the transactions that commit a cluster's risks
    const db = {
      ...h.db,
      dialect: h.db.dialect,
      all: h.db.all.bind(h.db),
      get: h.db.get.bind(h.db),
      run: h.db.run.bind(h.db),
      close: h.db.close.bind(h.db),
      transaction: <T>(
        work: (tx: Parameters<Parameters<typeof harnessNow.db.transaction>[0]>[0]) => Promise<T>,
      ) =>
        harnessNow.db.transaction(async (tx) => {
          const counting = {
            all: tx.all.bind(tx),
            get: tx.get.bind(tx),
            run: (sql: string, params?: readonly (string | number | null)[]) => {
              if (sql.includes("radar_risks")) commits += 1;
              return tx.run(sql, params);
            },
          };
          return work(counting);
        }),
    } as typeof h.db;
    radar = createRadar({
      palette: h.palette,
      db,
      clock: h.clock,
      logger: silentLogger,
      projects: projectsOf(h),
      callsPerMinute: 600,
      settings: DEFAULT_RISK_SETTINGS,
      sleep: async (ms) => harnessNow.clock.advance(ms),
    });
    await radar.readRepaves();
    // ten clusters came: nothing to warn of yet (under REPAVE_WARN_HOURS)
    expect(await new RadarStore(h.db).risks()).toEqual([]);
    commits = 0;
    h.clock.advance(10 * 60_000);
    await radar.readRepaves();
    // the next reconciliation: nothing came, went or crossed the threshold, so nothing is written
    expect(commits).toBe(0);
    // a day later every one of them is a risk, written once each
    h.clock.advance(25 * 3_600_000);
    await radar.readRepaves();
    expect((await new RadarStore(h.db).risks()).map((r) => r.risk.kind)).toEqual(
      pending.map(() => "repave"),
    );
    commits = 0;
    h.clock.advance(10 * 60_000);
    await radar.readRepaves();
    expect(commits).toBe(0);
  });

  it("a 429 on a notice keeps it: posted once Retry-After has passed, while the sweep reads other clusters", async () => {
    h = await harness();
    await h.subs.add({ channel: "CR", kind: "risks", createdBy: "U1" });
    await h.cycle();
    quietFleet(h);
    // the cluster read last in a pass (the sweep goes by UID among the never read), so the next
    // reads are of other clusters
    const target = [...h.sim.control.clusters()].sort((a, b) => (a.uid < b.uid ? 1 : -1))[0]!;
    h.sim.control.setCertificateExpiry(target.uid, h.clock.now() + 10 * DAY);
    let limited = false;
    h.fake.on("chat.postMessage", (call) => {
      if (limited || call.body.channel !== "CR") return undefined;
      limited = true;
      return {
        status: 429,
        headers: { "Retry-After": "30" },
        body: { ok: false, error: "ratelimited" },
      };
    });
    radar = startRadar(h);
    const fleet = h.sim.control.clusters().length;
    await radar.sweep(fleet);
    expect(h.posts("CR")).toHaveLength(1); // the refused one
    h.clock.advance(31_000);
    // the next few reads are of other clusters: the notice goes out with them, once
    await radar.sweep(2);
    expect(h.posts("CR")).toHaveLength(2);
    expect(textOf(h.posts("CR")[1]!)).toContain(target.name);
    await radar.sweep(2);
    expect(h.posts("CR")).toHaveLength(2);
  });

  it("notices that arrive together are paced at about one a second per channel", async () => {
    h = await harness();
    await h.subs.add({ channel: "CR", kind: "risks", createdBy: "U1" });
    await h.cycle();
    quietFleet(h);
    // five: as many as stay single notices (more alike roll up into one, radar-rollup.test.ts)
    const pending = h.sim.control.clusters().slice(0, ROLLUP_OVER);
    for (const cluster of pending) h.sim.control.setRepavePending(cluster.uid, ["pack changed"]);
    radar = startRadar(h);
    await radar.readRepaves();
    const postedAt: number[] = [];
    const clock = h.clock;
    h.fake.on("chat.postMessage", (call) => {
      if (call.body.channel === "CR") postedAt.push(clock.now());
      return undefined;
    });
    // a day later all five cross REPAVE_WARN_HOURS at the same reconciliation
    h.clock.advance(25 * 3_600_000);
    await radar.readRepaves();
    expect(h.posts("CR")).toHaveLength(ROLLUP_OVER);
    const gaps = postedAt.slice(1).map((at, i) => at - postedAt[i]!);
    // a short burst is fine (as for cluster cards); past it, a second apart
    expect(gaps.slice(2).every((gap) => gap >= 1_000)).toBe(true);
  });

  it("reads at most RADAR_CALLS_PER_MINUTE, only clusters in scope and not deleted", async () => {
    h = await harness();
    const [p1] = h.sim.control.projects();
    await h.cycle();
    const deleted = h.sim.control.clusters(p1)[0]!;
    h.sim.control.setState(deleted.uid, "Deleted");
    h.poller.requestReconcile();
    await h.cycle();
    // at tenant scope the whole tenant is in scope; with PALETTE_PROJECTS, only p1
    const inP1 = (c.tenant ? h.sim.control.clusters() : h.sim.control.clusters(p1)).filter(
      (cluster) => cluster.uid !== deleted.uid,
    );
    expect(inP1.length).toBeGreaterThan(3);
    radar = createRadar({
      palette: h.palette,
      db: h.db,
      clock: h.clock,
      logger: silentLogger,
      projects: c.tenant ? [] : [p1!],
      callsPerMinute: 30,
      settings: DEFAULT_RISK_SETTINGS,
      sleep: async (ms) => h!.clock.advance(ms),
    });
    h.sim.control.clearRequests();
    const started = h.clock.now();
    const read = await radar.sweep(10_000);
    expect(read).toBe(inP1.length);
    const calls = h.sim.control
      .requests()
      .filter((r) => /k8certificates|profileUpdates|features\/backup/.test(r.path));
    expect(calls).toHaveLength(read * CALLS_PER_CLUSTER);
    const paths = new Set(calls.map((c) => c.path.split("/")[3]));
    expect([...paths].sort()).toEqual(inP1.map((c) => c.uid).sort());
    // 30 a minute: the n-th call goes 2 s after the one before
    const minutes = (h.clock.now() - started) / 60_000;
    expect(calls.length / Math.max(minutes, 1e-9)).toBeLessThanOrEqual(30 * 1.04);
    expect(h.clock.now() - started).toBeGreaterThanOrEqual((calls.length - 1) * 2_000);
  });
});
