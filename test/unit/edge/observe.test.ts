import { describe, expect, it } from "vitest";
import { type EdgeNews, type ObserveContext, observe, siteOf } from "../../../src/edge/observe.ts";
import { groupBySite, siteKey } from "../../../src/edge/site-rollup.ts";
import type { EdgeHostRecord } from "../../../src/model/edge-host.ts";
import type { EdgeHostSummary } from "../../../src/palette/edge-reads.ts";

/** The edge rules of issue 39 as pure functions: grace, once, recovery, unpaired, gone, sites. */

const MINUTE = 60_000;
const GRACE = 2 * MINUTE;
const T0 = Date.UTC(2026, 0, 10, 2, 14);

function host(overrides: Partial<EdgeHostSummary> = {}): EdgeHostSummary {
  return {
    uid: "h1",
    name: "store-0142-a",
    projectUid: "p1",
    state: "in-use",
    health: "healthy",
    tags: ["region:us-east", "site:store-0142"],
    clusters: [{ uid: "c1", name: "store-0142" }],
    ...overrides,
  };
}

const at = (minutes: number, extra: Partial<ObserveContext> = {}): ObserveContext => ({
  now: T0 + minutes * MINUTE,
  scope: "p1",
  siteTag: "site",
  graceMs: GRACE,
  ...extra,
});

/** Feeds reads in order, as successive poll cycles would, and collects the news. */
function run(reads: Array<[number, EdgeHostSummary | undefined]>, start?: EdgeHostRecord) {
  let record = start;
  const news: EdgeNews[] = [];
  for (const [minute, seen] of reads) {
    const result = observe(record, seen, at(minute));
    record = result.record;
    if (result.news) news.push(result.news);
  }
  return { record, news };
}

const healthy = (): EdgeHostRecord => observe(undefined, host(), at(-60)).record!;

describe("a host going dark", () => {
  it("dark for less than the grace posts nothing, and its recovery posts nothing either", () => {
    const { news, record } = run(
      [
        [0, host({ health: "unhealthy" })],
        [1, host({ health: "unhealthy" })],
        [1.5, host({ health: "healthy" })],
      ],
      healthy(),
    );
    expect(news).toEqual([]);
    expect(record?.told).toBe("");
    expect(record?.unhealthySince).toBeUndefined();
    expect(record?.lastSeenHealthy).toBe(T0 + 1.5 * MINUTE);
  });

  it("past the grace it is told once, with the bot's own 'since'; recovery says how long", () => {
    const { news } = run(
      [
        [0, host({ health: "unhealthy", healthMessage: "lost connection" })],
        [1, host({ health: "unhealthy" })],
        [2, host({ health: "unhealthy" })],
        [3, host({ health: "unhealthy" })],
        [37, host({ health: "healthy" })],
      ],
      healthy(),
    );
    expect(news.map((item) => item.kind)).toEqual(["unhealthy", "recovered"]);
    expect(news[0]).toMatchObject({ since: T0, host: { site: "store-0142", clusterUid: "c1" } });
    expect(news[1]).toMatchObject({ was: "unhealthy", darkMs: 37 * MINUTE });
  });

  it("a host that must not count as healthy because it never reported stays untold", () => {
    const { news, record } = run([[0, host({ health: undefined })]], healthy());
    expect(news).toEqual([]);
    expect(record?.health).toBe("");
    expect(record?.lastSeenHealthy).toBe(T0 - 60 * MINUTE);
  });
});

describe("unpaired, gone and the baseline", () => {
  it("unpaired is told at once and once; paired again is told as recovered", () => {
    const { news } = run(
      [
        [0, host({ state: "unpaired", clusters: [] })],
        [1, host({ state: "unpaired", clusters: [] })],
        [5, host({ state: "ready", clusters: [] })],
      ],
      healthy(),
    );
    expect(news.map((item) => [item.kind, "was" in item ? item.was : ""])).toEqual([
      ["unpaired", ""],
      ["recovered", "unpaired"],
    ]);
  });

  it("a host deleted from Palette ends its notice; an untold one is forgotten quietly", () => {
    const told = run(
      [
        [0, host({ health: "unhealthy" })],
        [2, host({ health: "unhealthy" })],
      ],
      healthy(),
    );
    expect(told.record?.told).toBe("unhealthy");
    const gone = observe(told.record, undefined, at(3));
    expect(gone).toEqual({
      record: undefined,
      news: { kind: "gone", host: told.record, was: "unhealthy" },
    });
    expect(observe(healthy(), undefined, at(3))).toEqual({ record: undefined });
  });

  it("the first read tells nothing but remembers what is dark, so its recovery is news", () => {
    const first = observe(undefined, host({ health: "unhealthy" }), at(0, { baseline: true }));
    expect(first.news).toBeUndefined();
    expect(first.record).toMatchObject({ told: "unhealthy", unhealthySince: T0 });
    const back = observe(first.record, host(), at(10));
    expect(back.news).toMatchObject({ kind: "recovered", darkMs: 10 * MINUTE });
  });

  it("reads the site from the configured tag key only", () => {
    expect(siteOf(["site:a", "store:b"], "store")).toBe("b");
    expect(siteOf(["site:"], "site")).toBeUndefined();
    expect(siteOf(["dev"], "site")).toBeUndefined();
  });
});

describe("a site's hosts roll up", () => {
  const darkAt = (uid: string, site: string | undefined) => {
    const tags = site ? [`site:${site}`] : [];
    const start = observe(undefined, host({ uid, tags }), at(-10)).record!;
    const dark = observe(start, host({ uid, tags, health: "unhealthy" }), at(0)).record!;
    return observe(dark, host({ uid, tags, health: "unhealthy" }), at(2)).news!;
  };

  it("40 hosts of one site going dark together are one group, not 40", () => {
    const news = Array.from({ length: 40 }, (_, i) => darkAt(`h${i}`, "store-0142"));
    news.push(darkAt("lonely", undefined), darkAt("x1", "store-7"), darkAt("x2", "store-7"));
    const grouped = groupBySite(news);
    expect(grouped.sites).toHaveLength(1);
    expect(grouped.sites[0]).toMatchObject({
      key: siteKey("p1", "store-0142"),
      direction: "dark",
      site: "store-0142",
    });
    expect(grouped.sites[0]!.news).toHaveLength(40);
    // below the roll-up's size, hosts are told one by one
    expect(grouped.single.map((item) => item.host.uid).sort()).toEqual(["lonely", "x1", "x2"]);
  });
});
