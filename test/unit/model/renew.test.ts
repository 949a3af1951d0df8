import { describe, expect, it } from "vitest";
import { type RenewPlan, renewProgress } from "../../../src/model/change.ts";
import { planDrift } from "../../../src/model/plan-drift.ts";
import { changeCommandText, changeSummary } from "../../../src/views/change.ts";

const NOW = Date.parse("2026-11-25T12:00:00Z");
const DAY = 86_400_000;

const plan: RenewPlan = {
  verb: "renew",
  cluster: { uid: "c1", name: "web", projectUid: "p1", cloudType: "aws", state: "Running" },
  expiresAt: NOW + 20 * DAY,
  count: 7,
  readAt: NOW,
};

describe("renew certificates", () => {
  it("is followed until the earliest expiry Palette lists is later than the one confirmed", () => {
    expect(renewProgress(plan, undefined).kind).toBe("working");
    expect(renewProgress(plan, plan.expiresAt).kind).toBe("working");
    expect(renewProgress(plan, NOW + 365 * DAY)).toEqual({
      kind: "done",
      line: "certificates renewed: the earliest now expires 2027-11-25",
    });
  });

  it("a renewal meanwhile is a drift the confirmation refuses on; the same expiry is none", () => {
    expect(planDrift(plan, { ...plan, readAt: NOW + 60_000 })).toEqual([]);
    expect(planDrift(plan, { ...plan, expiresAt: NOW + 365 * DAY })).toEqual([
      { what: "the certificates' earliest expiry", was: "2026-12-15", now: "2027-11-25" },
    ]);
  });

  it("says what it does and replays as the verb", () => {
    expect(changeSummary(plan)).toBe("renew the Kubernetes certificates of *web*");
    expect(changeCommandText(plan)).toBe("renew certificates c1 project:p1");
  });
});
