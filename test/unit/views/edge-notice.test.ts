import { describe, expect, it } from "vitest";
import type { EdgeHostRecord } from "../../../src/model/edge-host.ts";
import {
  edgeHostNoticeBlocks,
  edgeHostNoticeText,
  edgeSiteRollupBlocks,
  edgeSiteRollupText,
  formatDuration,
  SITE_LINES,
} from "../../../src/views/edge-notice.ts";
import { blockTextLength, checkSlackLimits, LIMITS } from "../../../src/views/limits.ts";

/** The edge notices' Block Kit (issue 39): Slack's limits, escaping, and the words a channel reads. */

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 0, 10, 2, 14);

function record(overrides: Partial<EdgeHostRecord> = {}): EdgeHostRecord {
  return {
    uid: "h1",
    scope: "p1",
    projectUid: "p1",
    name: "store-0142-a",
    site: "store-0142",
    tags: ["site:store-0142"],
    clusterUid: "c1",
    clusterName: "store-0142",
    state: "in-use",
    health: "unhealthy",
    message: "lost connection",
    firstSeenAt: T0 - 60 * MINUTE,
    seenAt: T0 + 2 * MINUTE,
    unhealthySince: T0,
    lastSeenHealthy: T0 - MINUTE,
    told: "unhealthy",
    ...overrides,
  };
}

const textOf = (blocks: unknown) => JSON.stringify(blocks);

describe("one host's notice", () => {
  it("says since when it is dark, by the bot's reads, and its last healthy read", () => {
    const blocks = edgeHostNoticeBlocks({ kind: "unhealthy", host: record(), at: T0 + 2 * MINUTE });
    expect(checkSlackLimits(blocks)).toEqual([]);
    const text = textOf(blocks);
    expect(text).toContain("Edge host store-0142-a is unhealthy");
    expect(text).toContain(`<!date^${T0 / 1000}^`);
    expect(text).toContain("Last seen healthy");
    expect(text).toContain("lost connection");
    expect(text).toContain("`store-0142`");
  });

  it("its recovery says how long: healthy again after 37 min", () => {
    const view = {
      kind: "recovered" as const,
      host: record({ health: "healthy", told: "" }),
      was: "unhealthy" as const,
      darkMs: 37 * MINUTE,
      at: T0 + 37 * MINUTE,
    };
    expect(edgeHostNoticeText(view)).toBe("Edge host store-0142-a is healthy again after 37 min");
    expect(textOf(edgeHostNoticeBlocks(view))).not.toContain("lost connection");
  });

  it("escapes what hosts and Palette supply, in the blocks and the fallback text", () => {
    const hostile = record({
      name: "<!channel> *x*",
      message: "<https://evil|click>",
      site: "<@U123>",
      clusterName: "`a`",
    });
    const blocks = edgeHostNoticeBlocks({ kind: "unhealthy", host: hostile, at: T0 });
    expect(checkSlackLimits(blocks)).toEqual([]);
    const text = textOf(blocks);
    expect(text).not.toContain("<!channel>");
    expect(text).not.toContain("<https://evil");
    expect(text).not.toContain("<@U123>");
    expect(edgeHostNoticeText({ kind: "unpaired", host: hostile, at: T0 })).toBe(
      "Edge host &lt;!channel&gt; *x* is unpaired",
    );
  });

  it("reads durations the way a channel does", () => {
    expect(formatDuration(37 * MINUTE)).toBe("37 min");
    expect(formatDuration(125 * MINUTE)).toBe("2 h 5 min");
    expect(formatDuration(60 * MINUTE)).toBe("1 h");
    expect(formatDuration(76 * 60 * MINUTE)).toBe("3 d 4 h");
  });
});

describe("a site's roll-up", () => {
  const site = (n: number) =>
    Array.from({ length: n }, (_, i) =>
      record({ uid: `h${i}`, name: `store-0142-h${String(i).padStart(3, "0")}` }),
    );

  it("40 hosts dark: one message naming them all, within Slack's limits", () => {
    const blocks = edgeSiteRollupBlocks({
      site: "store-0142",
      projectName: "retail",
      dark: site(40),
      back: 0,
      at: T0,
    });
    expect(checkSlackLimits(blocks)).toEqual([]);
    const text = textOf(blocks);
    expect(text).toContain("Site store-0142 (retail)");
    expect(text).toContain("40 edge hosts dark since");
    expect(text).toContain("store-0142-h039");
    expect(edgeSiteRollupText({ site: "store-0142", dark: site(40), back: 2, at: T0 })).toBe(
      "Site store-0142: 40 edge hosts dark, 2 back",
    );
  });

  it("200 hosts dark: the first 40 named, the rest counted, still within the limits", () => {
    const blocks = edgeSiteRollupBlocks({ site: "store-0142", dark: site(200), back: 0, at: T0 });
    expect(checkSlackLimits(blocks)).toEqual([]);
    expect(blockTextLength(blocks)).toBeLessThanOrEqual(LIMITS.messageBlockText);
    const text = textOf(blocks);
    expect(text).toContain(`…and ${200 - SITE_LINES} more`);
    expect(text).not.toContain("store-0142-h040");
  });

  it("all back: the same message says so", () => {
    const blocks = edgeSiteRollupBlocks({ site: "store-0142", dark: [], back: 40, at: T0 });
    expect(textOf(blocks)).toContain("all 40 edge hosts healthy again");
    expect(checkSlackLimits(blocks)).toEqual([]);
  });
});
