import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { webApi } from "@slack/bolt";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/access/types.ts";
import { ManualClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { createPaletteClient, type PaletteClient } from "../../src/palette/client.ts";
import { Secret } from "../../src/secret.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { slackClientOptions } from "../../src/slack/app.ts";
import { createLaunchRuntime, type LaunchRuntime } from "../../src/slack/launch-runtime.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { LaunchStore } from "../../src/store/launches.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import type { CommandDeps } from "../../src/verb-kit/types.ts";
import { type FakeSlack, type RecordedCall, startFakeSlack } from "../support/fake-slack.ts";
import { SAMPLE_ANSWERS } from "../support/launch-answers.ts";
import { type LaunchHarness, startLaunchHarness, stateFor } from "../support/launch-harness.ts";

/**
 * A crash between "name reserved" and "Palette answered, recorded" leaves a reservation
 * `submitting`. The next start asks Palette by name: a cluster that exists is followed like any
 * launch (one card), a cluster that does not frees the name; an unreachable Palette is asked
 * again later, never taken as "not there".
 */

/** a tick only when the test calls it */
const byHand = () => ({ stop() {} });

const isCardOf = (name: string) => (call: RecordedCall) =>
  !call.body.thread_ts && JSON.stringify(call.body.blocks ?? "").includes(name);

describe("launch: reservations left by a crash are reconciled at start", () => {
  let sim: RunningSimulator;
  let palette: PaletteClient;
  let fake: FakeSlack;
  let dir: string;
  let project: string;
  const clock = new ManualClock(Date.UTC(2026, 2, 1));
  let db: SqlDb | undefined;
  let runtime: LaunchRuntime | undefined;

  beforeAll(async () => {
    sim = await startSimulator({ clock, clusters: 5, seed: 11 });
    palette = createPaletteClient({
      baseUrl: sim.url,
      credentials: { kind: "apiKey", apiKey: new Secret(sim.credentials.apiKey) },
      logger: silentLogger,
      rateLimit: false,
      retries: 0,
    });
    fake = await startFakeSlack();
    project = sim.control.projects()[0]!;
    dir = mkdtempSync(join(tmpdir(), "launch-reconcile-"));
  });
  afterAll(async () => {
    await palette?.close();
    await sim?.close();
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    fake.reset();
    sim.control.clearFaults();
  });
  afterEach(async () => {
    await runtime?.tracker.stop();
    runtime = undefined;
    await db?.close();
    db = undefined;
  });

  let fileSequence = 0;

  /** the process before the crash: it reserved the name, then died before recording anything */
  async function crashAfterReserve(name: string): Promise<{ file: string; id: number }> {
    const file = join(dir, `state-${++fileSequence}.sqlite`);
    const before = await openSqlite(file);
    const claim = await new LaunchStore(before, clock).reserve({
      submissionKey: `slack:V-${name}`,
      projectUid: project,
      provider: "aws",
      name,
      requester: "W111",
      channel: "C111",
    });
    await before.close();
    if (claim.kind !== "reserved") throw new Error("not reserved");
    return { file, id: claim.record.id };
  }

  /** the next process: the store reopened and the launch runtime started, as src/app/bot.ts does */
  async function restart(file: string): Promise<{ store: LaunchStore; runtime: LaunchRuntime }> {
    db = await openSqlite(file);
    const deps: CommandDeps = {
      palette,
      db,
      audit: new AuditLog(db, clock),
      policy: allowAll,
      clock,
      logger: silentLogger,
      projects: [project],
      consoleUrl: "https://console.example.com/",
    };
    const client = new webApi.WebClient("xoxb-test", slackClientOptions(fake.apiUrl));
    runtime = createLaunchRuntime(client, deps);
    runtime.tracker.start(byHand);
    return { store: new LaunchStore(db, clock), runtime };
  }

  it("Palette has the cluster: recorded as created, followed, and its card posted once", async () => {
    const { file, id } = await crashAfterReserve("crash-made");
    // the create reached Palette before the crash
    const cluster = sim.control.addCluster({
      name: "crash-made",
      projectUid: project,
      provider: "aws",
    });
    clock.advance(30_000);

    const { store, runtime } = await restart(file);
    await runtime.tracker.tick();

    const record = await store.get(id);
    expect(record?.status).toBe("created");
    expect(record?.clusterUid).toBe(cluster.uid);
    expect(record?.cardTs).toBeTruthy();
    const cards = fake.callsTo("chat.postMessage").filter(isCardOf("crash-made"));
    expect(cards).toHaveLength(1);
    expect(cards[0]!.body.channel).toBe("C111");
    expect(JSON.stringify(cards[0]!.body.blocks)).toContain("Open in Palette");
    // the recovered launch is audited as created, like one recorded at once
    const audit = (await new AuditLog(db!, clock).recent(5)).find(
      (r) => r.target === "aws/crash-made",
    );
    expect(audit?.outcome).toBe("created");
    expect(audit?.detail).toContain(cluster.uid);

    // later ticks edit that card; they never post a second one
    clock.advance(60_000);
    await runtime.tracker.tick();
    expect(fake.callsTo("chat.postMessage").filter(isCardOf("crash-made"))).toHaveLength(1);
  });

  it("Palette has no such cluster: the reservation is released and the name is free again", async () => {
    const { file, id } = await crashAfterReserve("crash-lost");
    clock.advance(5 * 60_000);

    const { store, runtime } = await restart(file);
    await runtime.tracker.tick();

    expect(await store.get(id)).toBeUndefined();
    expect(fake.callsTo("chat.postMessage").filter(isCardOf("crash-lost"))).toHaveLength(0);
    const again = await store.reserve({
      submissionKey: "slack:V-again",
      projectUid: project,
      provider: "aws",
      name: "crash-lost",
      requester: "W111",
      channel: "C111",
    });
    expect(again.kind).toBe("reserved");
  });

  it("Palette unreachable at start: the reservation is kept, and reconciled once Palette answers", async () => {
    const { file, id } = await crashAfterReserve("crash-offline");
    sim.control.addCluster({ name: "crash-offline", projectUid: project, provider: "aws" });
    clock.advance(5 * 60_000);
    sim.control.addFault({
      pathPrefix: "/v1/dashboard/spectroclusters",
      kind: "status",
      status: 503,
    });

    const { store, runtime } = await restart(file);
    await runtime.tracker.tick();
    // an error is not "no such cluster": the name stays reserved, nothing is posted
    expect((await store.get(id))?.status).toBe("submitting");
    expect(fake.callsTo("chat.postMessage")).toHaveLength(0);

    sim.control.clearFaults();
    clock.advance(15_000);
    await runtime.tracker.tick();
    expect((await store.get(id))?.status).toBe("created");
    expect(fake.callsTo("chat.postMessage").filter(isCardOf("crash-offline"))).toHaveLength(1);
  });

  it("a cluster of that name Palette had long before the reservation is not taken for the launch", async () => {
    // someone made "old-namesake" in Palette an hour before; the crash came before the name check
    sim.control.addCluster({ name: "old-namesake", projectUid: project, provider: "aws" });
    clock.advance(3600_000);
    const { file, id } = await crashAfterReserve("old-namesake");
    clock.advance(5 * 60_000);

    const { store, runtime } = await restart(file);
    await runtime.tracker.tick();

    expect(await store.get(id)).toBeUndefined();
    expect(fake.callsTo("chat.postMessage")).toHaveLength(0);
  });

  it("a reservation made after start (a submit still talking to Palette) is left alone", async () => {
    const { file } = await crashAfterReserve("crash-other");
    clock.advance(5 * 60_000);
    const { store, runtime } = await restart(file);
    const live = await store.reserve({
      submissionKey: "slack:V-live",
      projectUid: project,
      provider: "aws",
      name: "in-flight-now",
      requester: "W111",
      channel: "C111",
    });
    if (live.kind !== "reserved") throw new Error("not reserved");
    clock.advance(5 * 60_000);
    await runtime.tracker.tick();
    expect((await store.get(live.record.id))?.status).toBe("submitting");
  });
});

describe("launch: Palette created the cluster but the store could not record it", () => {
  let h: LaunchHarness;
  let account: string;
  let profile: string;

  beforeAll(async () => {
    h = await startLaunchHarness();
    const { view } = await h.openModal();
    const form = await h.pickProvider(view, "aws");
    account = (await h.suggest(form, "account", ""))[0]!.value;
    profile = (await h.suggest(form, "profile", ""))[0]!.value;
  });
  afterAll(async () => {
    await h?.close();
  });

  it("the user is told Palette created it (not 'failed'), and the tracker picks it up", async () => {
    // a real SQLite failure on exactly the write that records the create
    await h.bot.db.run(`CREATE TRIGGER refuse_created BEFORE UPDATE OF status ON launches
      WHEN NEW.status = 'created' BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`);
    const { view } = await h.openModal();
    const form = await h.pickProvider(view, "aws");
    const answer = await h.submit(
      form,
      stateFor("aws", h.project, {
        ...(SAMPLE_ANSWERS.aws as Record<string, string>),
        account,
        profile,
        name: "unrecorded-one",
      }),
    );
    const created = h.sim.control.clusters(h.project).find((c) => c.name === "unrecorded-one");
    expect(created).toBeDefined();
    const shown = JSON.stringify(answer.body);
    expect(shown).not.toMatch(/Not launched|failed|went wrong/i);
    expect(shown).toContain("Palette created cluster");
    expect(shown).toContain("unrecorded-one");
    expect(answer.body.response_action).toBe("update");

    const store = new LaunchStore(h.bot.db, h.clock);
    const kept = (await store.all()).find((r) => r.name === "unrecorded-one");
    // the name stays reserved: nobody can launch a second cluster of that name meanwhile
    expect(kept?.status).toBe("submitting");

    // the store works again: the next look records the cluster and posts its one card
    await h.bot.db.run("DROP TRIGGER refuse_created");
    await h.launch.tracker.tick();
    const record = await store.get(kept!.id);
    expect(record?.status).toBe("created");
    expect(record?.clusterUid).toBe(created!.uid);
    expect(h.bot.fake.callsTo("chat.postMessage").filter(isCardOf("unrecorded-one"))).toHaveLength(
      1,
    );
  });
});
