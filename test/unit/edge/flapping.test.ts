import { describe, expect, it } from "vitest";
import { type EdgeNews, observe } from "../../../src/edge/observe.ts";
import type { EdgeHostRecord } from "../../../src/model/edge-host.ts";
import type { EdgeHostSummary } from "../../../src/palette/edge-reads.ts";

/** An edge host dark and back past the grace again and again is damped as a cluster is. */

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 0, 10, 2, 0);
const summary = (health: "healthy" | "unhealthy"): EdgeHostSummary => ({
  uid: "h1",
  name: "store-0142-a",
  projectUid: "p1",
  state: "in-use",
  health,
  tags: ["site:store-0142"],
  clusters: [],
});
const context = (minute: number) => ({
  now: T0 + minute * MINUTE,
  scope: "p1",
  siteTag: "site",
  graceMs: 0,
});

function run(reads: Array<[number, "healthy" | "unhealthy"]>, start: EdgeHostRecord) {
  let record: EdgeHostRecord | undefined = start;
  const news: Array<EdgeNews["kind"] | string> = [];
  for (const [minute, health] of reads) {
    const result = observe(record, summary(health), context(minute));
    record = result.record;
    if (result.news) {
      news.push(
        result.news.kind === "settled"
          ? `settled ${result.news.dark ? "dark" : "healthy"}`
          : result.news.kind,
      );
    }
  }
  return { news, record: record! };
}

const learnt = () => observe(undefined, summary("healthy"), context(-60)).record!;

describe("edge flapping", () => {
  it("past three transitions in ten minutes: one 'flapping', silence, then one 'settled'", () => {
    const { news, record } = run(
      [
        [0, "unhealthy"],
        [1, "healthy"],
        [2, "unhealthy"],
        [3, "healthy"], // the fourth transition within the window
        [4, "unhealthy"],
        [5, "healthy"],
        [6, "healthy"],
        [15, "healthy"], // a whole window after the last transition: settled
        [16, "healthy"], // and said once
      ],
      learnt(),
    );
    expect(news).toEqual(["unhealthy", "recovered", "unhealthy", "flapping", "settled healthy"]);
    expect(record.flapping).toBeUndefined();
    expect(record.told).toBe("");
  });

  it("a flapping host that settles dark says so, and its notice stays open", () => {
    const { news, record } = run(
      [
        [0, "unhealthy"],
        [1, "healthy"],
        [2, "unhealthy"],
        [3, "healthy"],
        [4, "unhealthy"],
        [20, "unhealthy"],
      ],
      learnt(),
    );
    expect(news).toEqual(["unhealthy", "recovered", "unhealthy", "flapping", "settled dark"]);
    expect(record.told).toBe("unhealthy");
  });

  it("transitions spread wider than the window are ordinary news", () => {
    const { news } = run(
      [
        [0, "unhealthy"],
        [6, "healthy"],
        [12, "unhealthy"],
        [18, "healthy"],
        [24, "unhealthy"],
      ],
      learnt(),
    );
    expect(news).toEqual(["unhealthy", "recovered", "unhealthy", "recovered", "unhealthy"]);
  });
});
