import { afterEach, describe, expect, it } from "vitest";
import { homeSources } from "../../../src/app/home-sources.ts";
import { ManualClock } from "../../../src/clock.ts";
import type { ClusterSnap } from "../../../src/model/cluster.ts";
import type { SqlDb } from "../../../src/store/sql.ts";
import { SubscriptionStore } from "../../../src/store/subscriptions.ts";
import { type FakeCluster, FakePalette } from "../../support/fake-palette.ts";
import { openMemoryDb } from "../../support/store.ts";

const T0 = Date.parse("2026-01-01T12:00:00.000Z");
let db: SqlDb | undefined;

afterEach(() => db?.close());

const snap = (uid: string, state = "Running", health = "Healthy"): ClusterSnap => ({
  uid,
  name: `${uid}-name`,
  project: "p-1",
  state,
  health,
  tags: [],
});

/**
 * The shared FakePalette holding `byProject`'s clusters (key "" = clusters a tenant-scope search
 * finds, in project "tenant-p"); `scopes` collects the scope of every search, in order.
 */
function palette(byProject: Record<string, string[]>, scopes: Array<string | undefined>) {
  const fake = new FakePalette(
    Object.entries(byProject).flatMap(([project, uids]) =>
      uids.map(
        (uid): FakeCluster => ({
          uid,
          name: `${uid}-name`,
          projectUid: project || "tenant-p",
          projectName: "Default",
          state: "Running",
          health: "Healthy",
          provider: "aws",
        }),
      ),
    ),
  );
  fake.onCall = (call) => {
    if (call.method === "searchClusters") {
      scopes.push((call.args[0] as { projectUid?: string }).projectUid);
    }
  };
  return fake;
}

describe("homeSources().fleet", () => {
  it("uses the poller's snapshot while it is fresh: no Palette call at all", async () => {
    db = await openMemoryDb();
    const clock = new ManualClock(T0);
    const scopes: Array<string | undefined> = [];
    const sources = homeSources({
      poller: {
        lastSnapshot: async () => ({
          clusters: [snap("c-1"), snap("c-2", "Running", "UnHealthy")],
          at: new Date(T0 - 30_000).toISOString(),
        }),
      },
      palette: palette({}, scopes),
      db,
      projects: ["p-1"],
      clock,
    });
    const fleet = await sources.fleet();
    expect(scopes).toEqual([]);
    expect(fleet.at).toBe(T0 - 30_000);
    expect(fleet.clusters.map((c) => [c.uid, c.projectUid, c.health])).toEqual([
      ["c-1", "p-1", "Healthy"],
      ["c-2", "p-1", "UnHealthy"],
    ]);
  });

  it("searches each watched project when the snapshot is stale or missing", async () => {
    db = await openMemoryDb();
    const clock = new ManualClock(T0);
    const scopes: Array<string | undefined> = [];
    const stale = homeSources({
      poller: {
        lastSnapshot: async () => ({
          clusters: [snap("old")],
          at: new Date(T0 - 10 * 60_000).toISOString(),
        }),
      },
      palette: palette({ "p-1": ["a"], "p-2": ["b", "c"] }, scopes),
      db,
      projects: ["p-1", "p-2"],
      clock,
    });
    const fleet = await stale.fleet();
    expect(scopes).toEqual(["p-1", "p-2"]);
    expect(fleet.at).toBe(T0);
    expect(fleet.clusters.map((c) => [c.uid, c.projectUid, c.provider])).toEqual([
      ["a", "p-1", "aws"],
      ["b", "p-2", "aws"],
      ["c", "p-2", "aws"],
    ]);

    // no PALETTE_PROJECTS: one tenant-scope search; no snapshot yet (the bot just started)
    const tenantScopes: Array<string | undefined> = [];
    const tenant = homeSources({
      poller: { lastSnapshot: async () => ({ clusters: [] }) },
      palette: palette({ "": ["t"] }, tenantScopes),
      db,
      projects: [],
      clock,
    });
    const tenantFleet = await tenant.fleet();
    expect(tenantScopes).toEqual([undefined]);
    expect(tenantFleet.clusters.map((c) => [c.uid, c.projectUid])).toEqual([["t", "tenant-p"]]);
  });
});

describe("homeSources().fleet under load", () => {
  it("reads Palette once for many openers, keeps that read while fresh, and falls back to the old picture", async () => {
    db = await openMemoryDb();
    const clock = new ManualClock(T0);
    let searches = 0;
    let fail = false;
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const flakyPalette = palette({ "p-1": ["fresh"] }, []);
    flakyPalette.gate = gate;
    flakyPalette.onCall = () => {
      searches++;
    };
    flakyPalette.failOn("searchClusters", () => (fail ? new Error("palette down") : undefined));
    const sources = homeSources({
      poller: {
        lastSnapshot: async () => ({
          clusters: [snap("old")],
          at: new Date(T0 - 60 * 60_000).toISOString(),
        }),
      },
      palette: flakyPalette,
      db,
      projects: ["p-1"],
      clock,
    });
    const opens = Promise.all([sources.fleet(), sources.fleet(), sources.fleet()]);
    release();
    const fleets = await opens;
    expect(searches).toBe(1);
    for (const fleet of fleets) expect(fleet.clusters.map((c) => c.uid)).toEqual(["fresh"]);

    clock.advance(60_000);
    await sources.fleet();
    expect(searches).toBe(1);

    clock.advance(10 * 60_000);
    fail = true;
    const fallback = await sources.fleet();
    expect(searches).toBe(2);
    expect(fallback.clusters.map((c) => c.uid)).toEqual(["fresh"]);
    expect(fallback.at).toBe(T0);
  });
});

describe("homeSources().subscriptionsFor", () => {
  it("shows only the subscriptions of channels the user is in, following every page", async () => {
    db = await openMemoryDb();
    const clock = new ManualClock(T0);
    const store = new SubscriptionStore(db, clock);
    await store.add({ channel: "C1", kind: "all", createdBy: "U1" });
    await store.add({ channel: "C2", kind: "alerts", project: "p-1", createdBy: "U1" });
    await store.add({ channel: "G3", kind: "clusters", tag: "env:prod", createdBy: "U1" });
    const asked: Array<Record<string, unknown>> = [];
    const pages: Record<string, { channels: Array<{ id: string }>; next: string }> = {
      "": { channels: [{ id: "C9" }, { id: "C2" }], next: "page2" },
      page2: { channels: [{ id: "G3" }], next: "" },
    };
    const slack = {
      users: {
        conversations: async (args: Record<string, unknown>) => {
          asked.push(args);
          const page = pages[String(args.cursor ?? "")]!;
          return {
            ok: true,
            channels: page.channels,
            response_metadata: { next_cursor: page.next },
          };
        },
      },
    };
    const sources = homeSources({
      poller: { lastSnapshot: async () => ({ clusters: [] }) },
      palette: palette({}, []),
      db,
      projects: [],
      clock,
      slack: slack as never,
    });
    expect(await sources.subscriptionsFor("W111")).toEqual([
      { channel: "C2", kind: "alerts", project: "p-1", tag: undefined },
      { channel: "G3", kind: "clusters", project: undefined, tag: "env:prod" },
    ]);
    expect(asked).toHaveLength(2);
    expect(asked[0]).toMatchObject({ user: "W111", types: "public_channel,private_channel" });
    expect(asked[1]).toMatchObject({ cursor: "page2" });
  });

  it("asks Slack nothing when there are no subscriptions", async () => {
    db = await openMemoryDb();
    let calls = 0;
    const sources = homeSources({
      poller: { lastSnapshot: async () => ({ clusters: [] }) },
      palette: palette({}, []),
      db,
      projects: [],
      clock: new ManualClock(T0),
      slack: {
        users: {
          conversations: async () => {
            calls += 1;
            return { ok: true, channels: [] };
          },
        },
      } as never,
    });
    expect(await sources.subscriptionsFor("W111")).toEqual([]);
    expect(calls).toBe(0);
  });
});
