import { describe, expect, it } from "vitest";
import {
  backupRisk,
  certificateRisk,
  compareRisks,
  DEFAULT_RISK_SETTINGS,
  type RadarReading,
  repaveRisk,
  risksOf,
  schedulePeriodMs,
  updateRisk,
} from "../../../src/model/risk.ts";

const NOW = Date.parse("2026-11-25T10:00:00Z");
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const settings = DEFAULT_RISK_SETTINGS;

describe("certificateRisk", () => {
  const reading = (inDays: number): RadarReading => ({
    certificates: { earliest: NOW + inDays * DAY, count: 7 },
  });

  it("holds within CERT_WARN_DAYS, critical within 7 days, and not before", () => {
    expect(certificateRisk(reading(31), NOW, settings)).toBeUndefined();
    expect(certificateRisk(reading(30), NOW, settings)?.severity).toBe("warning");
    const twenty = certificateRisk(reading(20), NOW, settings);
    expect(twenty).toMatchObject({ kind: "certificates", severity: "warning" });
    expect(twenty?.summary).toBe("7 Kubernetes certificates expire in 20 days");
    expect(certificateRisk(reading(7), NOW, settings)?.severity).toBe("critical");
    expect(certificateRisk(reading(-1), NOW, settings)?.summary).toBe(
      "7 Kubernetes certificates expired",
    );
  });

  it("follows CERT_WARN_DAYS", () => {
    expect(certificateRisk(reading(40), NOW, { ...settings, certWarnDays: 45 })).toBeDefined();
    expect(certificateRisk(reading(20), NOW, { ...settings, certWarnDays: 14 })).toBeUndefined();
  });

  it("says nothing of a cluster whose certificates were never read", () => {
    expect(certificateRisk({}, NOW, settings)).toBeUndefined();
  });
});

describe("repaveRisk", () => {
  it("holds once a repave waited longer than REPAVE_WARN_HOURS", () => {
    expect(repaveRisk(undefined, NOW, settings)).toBeUndefined();
    expect(repaveRisk(NOW - 24 * HOUR, NOW, settings)).toBeUndefined();
    expect(repaveRisk(NOW - 25 * HOUR, NOW, settings)?.summary).toBe(
      "repave pending approval for 25 hours",
    );
    expect(repaveRisk(NOW - 3 * DAY, NOW, settings)?.summary).toBe(
      "repave pending approval for 3 days",
    );
    expect(repaveRisk(NOW - 5 * HOUR, NOW, { ...settings, repaveWarnHours: 4 })).toBeDefined();
  });
});

describe("schedulePeriodMs", () => {
  it("reads daily, hourly, stepped, weekly and monthly schedules", () => {
    expect(schedulePeriodMs("0 3 * * *")).toBe(DAY);
    expect(schedulePeriodMs("0 0 3 * * *")).toBe(DAY);
    expect(schedulePeriodMs("15 * * * *")).toBe(HOUR);
    expect(schedulePeriodMs("0 */6 * * *")).toBe(6 * HOUR);
    expect(schedulePeriodMs("0 1,13 * * *")).toBe(12 * HOUR);
    expect(schedulePeriodMs("0 2 * * 0")).toBe(7 * DAY);
    expect(schedulePeriodMs("0 2 1 * *")).toBe(31 * DAY);
    expect(schedulePeriodMs("nonsense")).toBeUndefined();
    expect(schedulePeriodMs(undefined)).toBeUndefined();
  });
});

describe("backupRisk", () => {
  const policy = (backup: Partial<NonNullable<RadarReading["backup"]>>): RadarReading => ({
    backup: { policy: true, schedule: "0 3 * * *", ...backup },
  });

  it("holds when the last run failed, with Palette's message", () => {
    const risk = backupRisk(
      policy({
        last: { state: "Failed", at: NOW - HOUR, message: "bucket unavailable" },
        lastSuccessAt: NOW - DAY,
      }),
      NOW,
    );
    expect(risk?.summary).toBe("last backup Failed: bucket unavailable");
    expect(backupRisk(policy({ last: { state: "PartiallyFailed" } }), NOW)).toBeDefined();
  });

  it("holds when the last success is older than twice the schedule, not before", () => {
    const ok = { state: "Completed", at: NOW - 2 * DAY };
    expect(backupRisk(policy({ last: ok, lastSuccessAt: NOW - 2 * DAY }), NOW)).toBeUndefined();
    const late = backupRisk(policy({ last: ok, lastSuccessAt: NOW - 3 * DAY }), NOW);
    expect(late?.summary).toBe("last successful backup 3 days ago");
  });

  it("holds when scheduled backups never ran; none without a policy", () => {
    expect(backupRisk(policy({}), NOW)?.summary).toBe("scheduled backups never ran");
    expect(backupRisk({ backup: { policy: false } }, NOW)).toBeUndefined();
    expect(backupRisk(policy({ last: { state: "InProgress" } }), NOW)).toBeUndefined();
  });
});

describe("updateRisk and ordering", () => {
  it("a newer profile version is information", () => {
    expect(updateRisk({ updates: [] })).toBeUndefined();
    expect(updateRisk({ updates: [{ name: "base", version: "1.2.0" }] })).toMatchObject({
      severity: "info",
      summary: "newer profile version: base 1.2.0",
    });
  });

  it("risksOf lists every risk that holds; compareRisks puts the worst first", () => {
    const reading: RadarReading = {
      certificates: { earliest: NOW + 3 * DAY, count: 1 },
      updates: [{ name: "base" }],
    };
    const risks = risksOf(reading, NOW - 30 * HOUR, NOW, settings);
    expect(risks.map((risk) => risk.kind)).toEqual(["certificates", "repave", "update"]);
    const rows = risks.map((risk, i) => ({ risk, name: `c${i}` })).reverse();
    expect(rows.sort(compareRisks).map((row) => row.risk.severity)).toEqual([
      "critical",
      "warning",
      "info",
    ]);
  });
});
