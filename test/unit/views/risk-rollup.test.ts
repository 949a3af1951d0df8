import { describe, expect, it } from "vitest";
import { blockTextLength, checkSlackLimits, LIMITS } from "../../../src/views/limits.ts";
import { ROLLUP_LINES, riskRollupBlocks, riskRollupText } from "../../../src/views/risk-rollup.ts";

const at = Date.UTC(2026, 0, 1, 12);
const members = (n: number, name = (i: number) => `cluster-${i}`) =>
  Array.from({ length: n }, (_, i) => ({
    name: name(i),
    severity: "info" as const,
    summary: "newer profile version: edge-<base> 2.1.0",
  }));

describe("risk roll-up view", () => {
  it("names the profile version and the count, escaped, in the blocks and the fallback", () => {
    const view = {
      kind: "update" as const,
      label: "edge-<base> 2.1.0",
      members: members(3),
      holding: 40,
      ended: 0,
      at,
    };
    const blocks = riskRollupBlocks(view);
    const text = JSON.stringify(blocks);
    expect(text).toContain("edge-&lt;base&gt; 2.1.0");
    expect(text).toContain("*40 clusters*");
    expect(text).toContain("…and 37 more");
    expect(text).not.toContain("<base>");
    expect(riskRollupText(view)).toBe(
      "Newer profile versions · edge-&lt;base&gt; 2.1.0: 40 clusters",
    );
    expect(checkSlackLimits(blocks)).toEqual([]);
  });

  it("says how many no longer hold, and once none holds says so with no button", () => {
    const some = { kind: "repave" as const, members: members(2), holding: 2, ended: 5, at };
    expect(JSON.stringify(riskRollupBlocks(some))).toContain("5 no longer hold");
    expect(riskRollupText(some)).toContain("2 clusters, 5 no longer");
    const none = { kind: "repave" as const, members: [], holding: 0, ended: 7, at };
    const blocks = riskRollupBlocks(none);
    expect(JSON.stringify(blocks)).toContain("no longer holds for any of the 7 clusters");
    expect(blocks.some((b) => b.type === "actions")).toBe(false);
    expect(checkSlackLimits(blocks)).toEqual([]);
  });

  it("stays under Slack's limits for 5,000 clusters with long names and a long label", () => {
    const long = (i: number) => `${"x".repeat(200)}-<&>-${i}`;
    const view = {
      kind: "update" as const,
      label: `${"profile-<a>&b ".repeat(400)}9.9.9`,
      members: members(ROLLUP_LINES, long),
      holding: 5_000,
      ended: 12,
      at,
    };
    const blocks = riskRollupBlocks(view);
    expect(checkSlackLimits(blocks)).toEqual([]);
    expect(blocks.length).toBeLessThanOrEqual(LIMITS.blocksPerMessage);
    expect(blockTextLength(blocks)).toBeLessThanOrEqual(LIMITS.messageBlockText);
    expect(JSON.stringify(blocks)).toContain(`…and ${5_000 - ROLLUP_LINES} more`);
    expect(riskRollupText(view).length).toBeLessThanOrEqual(LIMITS.fallbackText);
  });
});
