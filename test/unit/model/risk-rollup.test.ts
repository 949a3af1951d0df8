import { describe, expect, it } from "vitest";
import type { Risk } from "../../../src/model/risk.ts";
import {
  planNotices,
  ROLLUP_OVER,
  rollupGroup,
  rollupKey,
  rollupLabel,
} from "../../../src/model/risk-rollup.ts";

const update = (summary: string): Risk => ({ kind: "update", severity: "info", summary, rank: 0 });
const repave: Risk = {
  kind: "repave",
  severity: "warning",
  summary: "repave pending approval for 25 hours",
  rank: 1,
};
const due = (channel: string, risk: Risk, n: number) =>
  Array.from({ length: n }, (_, i) => ({ channel, risk, uid: `${channel}-${risk.kind}-${i}` }));

describe("risk roll-up grouping", () => {
  it("groups a newer profile version by the profile versions, other kinds by kind", () => {
    expect(rollupGroup(update("newer profile version: edge 2.1.0"))).toBe("update:edge 2.1.0");
    expect(rollupLabel(update("newer profile version: edge 2.1.0"))).toBe("edge 2.1.0");
    expect(rollupGroup(update("newer profile version: edge 2.2.0"))).not.toBe(
      rollupGroup(update("newer profile version: edge 2.1.0")),
    );
    expect(rollupGroup(repave)).toBe("repave");
    expect(rollupLabel(repave)).toBeUndefined();
  });

  it("keeps single notices for the few and rolls up more than the threshold, per channel and group", () => {
    const edge = update("newer profile version: edge 2.1.0");
    const other = update("newer profile version: core 1.0.1");
    const plan = planNotices(
      [
        ...due("CR", edge, ROLLUP_OVER + 1),
        ...due("CR", other, 2),
        ...due("CS", edge, ROLLUP_OVER),
        ...due("CR", repave, ROLLUP_OVER + 3),
      ],
      new Set(),
    );
    expect(plan.rollUps.map((r) => [r.channel, r.group, r.members.length, r.open])).toEqual([
      ["CR", "update:edge 2.1.0", ROLLUP_OVER + 1, false],
      ["CR", "repave", ROLLUP_OVER + 3, false],
    ]);
    // exactly the threshold stays single, as does another profile's few
    expect(plan.singles).toHaveLength(2 + ROLLUP_OVER);
    expect(plan.singles.every((s) => s.channel === "CS" || s.risk === other)).toBe(true);
  });

  it("a newcomer of a group with an open roll-up in the channel joins it, even alone", () => {
    const edge = update("newer profile version: edge 2.1.0");
    const plan = planNotices(
      [...due("CR", edge, 1), ...due("CS", edge, 1)],
      new Set([rollupKey("CR", "update:edge 2.1.0")]),
    );
    expect(plan.rollUps).toEqual([
      expect.objectContaining({ channel: "CR", open: true, kind: "update" }),
    ]);
    expect(plan.singles.map((s) => s.channel)).toEqual(["CS"]);
  });

  it("nothing due, nothing planned", () => {
    expect(planNotices([], new Set(["x"]))).toEqual({ singles: [], rollUps: [] });
  });
});
