import { describe, expect, it } from "vitest";
import { createAccessPolicy } from "../../../src/access/policy.ts";
import { ManualClock } from "../../../src/clock.ts";
import { silentLogger } from "../../../src/log.ts";
import type { CardPayload } from "../../../src/model/notification.ts";
import { acknowledgeCard } from "../../../src/notify/oncall/acknowledge.ts";
import { ackOutlived, endsIncident, startsIncident } from "../../../src/notify/oncall/incident.ts";
import { AckStore } from "../../../src/store/acks.ts";
import { AuditLog } from "../../../src/store/audit.ts";
import { CardStore } from "../../../src/store/cards.ts";
import { openMemoryDb } from "../../support/store.ts";

const payload = (over: Partial<CardPayload> = {}): CardPayload => ({
  cluster: {
    uid: "u1",
    name: "web-prod",
    project: "p1",
    state: "Running",
    health: "UnHealthy",
    tags: [],
  },
  previous: { state: "Running", health: "Healthy" },
  kinds: ["health-lost"],
  lines: ["Health lost: Healthy → UnHealthy"],
  worse: true,
  alerts: [],
  at: "2026-01-01T12:00:00.000Z",
  ...over,
});

async function setup(allowAck: string[] = ["*"]) {
  const db = await openMemoryDb();
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 5));
  const policy = createAccessPolicy({
    allowLaunch: [],
    allowKubeconfig: [],
    allowAck,
    client: { usergroups: { users: { list: async () => ({ ok: true, users: [] }) } } },
    clock,
    logger: silentLogger,
  });
  const audit = new AuditLog(db, clock);
  const cards = new CardStore(db);
  await cards.put({ channel: "C1", clusterUid: "u1", ts: "111.222", payload: payload() }, "t");
  const deps = { db, policy, audit, clock, logger: silentLogger };
  return { db, clock, audit, cards, deps, acks: new AckStore(db) };
}

describe("acknowledging a card", () => {
  it("stores who acknowledged it and when, and audits it", async () => {
    const s = await setup();
    const decision = await acknowledgeCard(s.deps, {
      channel: "C1",
      userId: "U1",
      messageTs: "111.222",
    });
    expect(decision).toMatchObject({
      kind: "acknowledged",
      clusterUid: "u1",
      ack: { userId: "U1", at: s.clock.now() },
      card: { ts: "111.222" },
    });
    expect(await s.acks.get("C1", "u1")).toEqual({ userId: "U1", at: s.clock.now() });
    expect((await s.audit.recent())[0]).toMatchObject({
      userId: "U1",
      action: "ack",
      outcome: "granted",
    });
    expect((await s.audit.recent())[0]!.target).toContain("web-prod");
  });

  it("the first acknowledgement stands: a second person hears who has it, nothing changes", async () => {
    const s = await setup();
    await acknowledgeCard(s.deps, { channel: "C1", userId: "U1", clusterUid: "u1" });
    const first = await s.acks.get("C1", "u1");
    s.clock.advance(60_000);
    const decision = await acknowledgeCard(s.deps, {
      channel: "C1",
      userId: "U2",
      clusterUid: "u1",
    });
    expect(decision).toEqual({ kind: "already", clusterUid: "u1", ack: first });
    expect(await s.acks.get("C1", "u1")).toEqual(first);
    expect((await s.audit.recent())[0]).toMatchObject({
      userId: "U2",
      action: "ack",
      outcome: "rejected",
    });
  });

  it("the same person clicking twice is told it is already theirs", async () => {
    const s = await setup();
    await acknowledgeCard(s.deps, { channel: "C1", userId: "U1", clusterUid: "u1" });
    const again = await acknowledgeCard(s.deps, { channel: "C1", userId: "U1", clusterUid: "u1" });
    expect(again.kind).toBe("already");
  });

  it("refuses a user outside ALLOW_ACK with how to get it; nothing is stored, the refusal is audited", async () => {
    const s = await setup(["U1"]);
    const decision = await acknowledgeCard(s.deps, {
      channel: "C1",
      userId: "U9",
      clusterUid: "u1",
    });
    expect(decision.kind).toBe("refused");
    expect(decision.kind === "refused" && decision.hint).toContain("ALLOW_ACK");
    expect(await s.acks.get("C1", "u1")).toBeUndefined();
    expect((await s.audit.recent())[0]).toMatchObject({
      userId: "U9",
      action: "ack",
      outcome: "denied",
    });
  });

  it("goes by the message clicked over the value it carries", async () => {
    const s = await setup();
    const decision = await acknowledgeCard(s.deps, {
      channel: "C1",
      userId: "U1",
      messageTs: "111.222",
      clusterUid: "not-this-one",
    });
    expect(decision.kind === "acknowledged" && decision.clusterUid).toBe("u1");
  });

  it("a card the bot does not follow (another channel, gone) is not acknowledged", async () => {
    const s = await setup();
    const decision = await acknowledgeCard(s.deps, {
      channel: "C2",
      userId: "U1",
      clusterUid: "u1",
    });
    expect(decision).toEqual({ kind: "unknown-card" });
    expect(await s.acks.get("C2", "u1")).toBeUndefined();
  });
});

describe("incidents (pure)", () => {
  const recovered = payload({
    cluster: { ...payload().cluster, health: "Healthy" },
    previous: { state: "Running", health: "UnHealthy" },
    kinds: ["health-recovered"],
    worse: false,
  });

  it("ends when the cluster is Healthy again: recovered, resolved or settled", async () => {
    expect(endsIncident(recovered)).toBe(true);
    const resolvedOnly = payload({
      cluster: recovered.cluster,
      kinds: [],
      previous: undefined,
      worse: false,
      alerts: [
        { status: "resolved", alert: "ClusterHealth", cluster: recovered.cluster, reason: "ok" },
      ],
    });
    expect(endsIncident(resolvedOnly)).toBe(true);
    expect(endsIncident(payload())).toBe(false);
    // Healthy but nothing recovered (a state change of a healthy cluster): not an end
    expect(endsIncident(payload({ cluster: recovered.cluster, kinds: ["state"] }))).toBe(false);
  });

  it("a new one begins when health leaves Healthy; not from no health yet, not on an alert alone", async () => {
    expect(startsIncident(payload())).toBe(true);
    // "" → UnHealthy: a cluster coming up goes bad, the trouble it was already in
    expect(startsIncident(payload({ previous: { state: "Provisioning", health: "" } }))).toBe(
      false,
    );
    // an alert raised again after Palette refused alerts for a while: the cluster never recovered
    const raised = payload({
      kinds: [],
      previous: undefined,
      alerts: [
        { status: "raised", alert: "ClusterHealth", cluster: payload().cluster, reason: "x" },
      ],
    });
    expect(startsIncident(raised)).toBe(false);
    expect(startsIncident(recovered)).toBe(false);
  });

  it("an acknowledgement given before a new incident was seen does not cover it; one after does", async () => {
    const seenAt = Date.parse(payload().at);
    expect(ackOutlived(payload(), { userId: "U1", at: seenAt - 1 })).toBe(true);
    expect(ackOutlived(payload(), { userId: "U1", at: seenAt + 1 })).toBe(false);
    expect(ackOutlived(recovered, { userId: "U1", at: seenAt - 1 })).toBe(false);
  });
});
