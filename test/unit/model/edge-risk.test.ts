import { describe, expect, it } from "vitest";
import {
  agentSkewRisks,
  DEFAULT_EDGE_RISK_SETTINGS as S,
  shellRisk,
  tokenRisks,
  unusedRisk,
} from "../../../src/model/edge-risk.ts";

const NOW = Date.UTC(2026, 10, 25, 12);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe("tokenRisks", () => {
  it("an active token within EDGE_TOKEN_WARN_DAYS is a warning, expired is critical, later is nothing", () => {
    const risks = tokenRisks(
      [
        { uid: "t1", name: "soon", active: true, expiry: NOW + 9 * DAY },
        { uid: "t2", name: "gone", active: true, expiry: NOW - HOUR },
        { uid: "t3", name: "later", active: true, expiry: NOW + 15 * DAY },
        { uid: "t4", name: "edge", active: true, expiry: NOW + 14 * DAY },
        { uid: "t5", name: "none", active: true },
      ],
      NOW,
      S,
    );
    expect(risks.map((r) => [r.subject.name, r.severity, r.summary])).toEqual([
      ["soon", "warning", "registration token expires in 9 days"],
      ["gone", "critical", "registration token expired"],
      ["edge", "warning", "registration token expires in 14 days"],
    ]);
  });

  it("an inactive token is a risk only while it is still a project's default", () => {
    const risks = tokenRisks(
      [
        {
          uid: "t1",
          name: "off-default",
          active: false,
          defaultProjectUid: "p1",
          defaultProjectName: "retail",
          expiry: NOW + DAY,
        },
        { uid: "t2", name: "off", active: false, expiry: NOW + DAY },
      ],
      NOW,
      S,
    );
    expect(risks).toHaveLength(1);
    expect(risks[0]).toMatchObject({
      subject: { name: "off-default", projectUid: "p1" },
      summary: "registration token inactive but still the default of project retail",
    });
  });
});

describe("shellRisk", () => {
  const shell = { hostUid: "h1", hostName: "store-1-h0", state: "Created" };
  it("open past EDGE_SHELL_WARN_HOURS by Palette's time, else by the bot's first sight", () => {
    expect(shellRisk({ ...shell, since: NOW - 9 * HOUR }, undefined, NOW, S)?.summary).toBe(
      "remote shell open for 9 hours",
    );
    expect(shellRisk({ ...shell, since: NOW - 8 * HOUR }, undefined, NOW, S)).toBeUndefined();
    expect(shellRisk(shell, NOW - 3 * DAY, NOW, S)?.summary).toBe(
      "remote shell open for 3 days (since the bot first saw it)",
    );
    expect(shellRisk(shell, undefined, NOW, S)).toBeUndefined();
  });
  it("only Created is open", () => {
    for (const state of ["Initiating", "Deleting", "Deleted", "Failed", "created"]) {
      expect(
        shellRisk({ ...shell, state, since: NOW - 30 * DAY }, undefined, NOW, S),
      ).toBeUndefined();
    }
  });
});

describe("agentSkewRisks", () => {
  const host = (uid: string, clusterUid: string | undefined, agentVersion: string) => ({
    uid,
    name: uid,
    projectUid: "p1",
    state: clusterUid ? "in-use" : "ready",
    agentVersion,
    ...(clusterUid ? { clusterUid, clusterName: `c-${clusterUid}` } : {}),
  });
  it("one risk per cluster whose hosts run different versions, the most common first", () => {
    const risks = agentSkewRisks([
      host("a", "c1", "v4.6.12"),
      host("b", "c1", "v4.6.12"),
      host("c", "c1", "v4.5.9"),
      host("d", "c2", "v4.6.12"),
      host("e", "c2", "v4.6.12"),
      host("f", undefined, "v4.0.0"),
    ]);
    expect(risks).toHaveLength(1);
    expect(risks[0]).toMatchObject({
      subject: { kind: "cluster", uid: "c1", name: "c-c1" },
      summary: "edge agent versions differ across its hosts: v4.6.12 on 2 hosts, v4.5.9 on 1 host",
    });
  });
});

describe("unusedRisk", () => {
  const ready = { uid: "h", name: "h", projectUid: "p", state: "ready" };
  it("ready and running no cluster past EDGE_UNUSED_DAYS, by the bot's first sight", () => {
    expect(unusedRisk(ready, NOW - 31 * DAY, NOW, S)?.summary).toBe(
      "ready but running no cluster for 31 days (by the bot's reads)",
    );
    expect(unusedRisk(ready, NOW - 30 * DAY, NOW, S)).toBeUndefined();
    expect(unusedRisk(ready, undefined, NOW, S)).toBeUndefined();
    expect(
      unusedRisk({ ...ready, state: "in-use", clusterUid: "c" }, NOW - 99 * DAY, NOW, S),
    ).toBeUndefined();
    expect(unusedRisk({ ...ready, state: "unpaired" }, NOW - 99 * DAY, NOW, S)).toBeUndefined();
  });
});
