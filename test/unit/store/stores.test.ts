/**
 * Every store on both backends (test/support/backends.ts): the same calls must give the same
 * answers from SQLite and from PostgreSQL. A difference is a store bug, not a test to split.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import type { Hold } from "../../../src/model/notification.ts";
import { AckStore } from "../../../src/store/acks.ts";
import { AuditLog } from "../../../src/store/audit.ts";
import { CardStore } from "../../../src/store/cards.ts";
import { HoldStore } from "../../../src/store/holds.ts";
import { LaunchStore } from "../../../src/store/launches.ts";
import { OutboxStore } from "../../../src/store/outbox.ts";
import { SubscriptionStore } from "../../../src/store/subscriptions.ts";
import { BACKENDS, closeOpened } from "../../support/backends.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../../support/postgres.ts";

afterEach(closeOpened);

const AT = "2026-01-01T00:00:00.000Z";

describe.each(BACKENDS)("on $name", { timeout: POSTGRES_SETUP_TIMEOUT_MS }, (backend) => {
  it("OutboxStore: heads per channel in order, retries, park, dead letters, requeue, prune", async () => {
    const outbox = new OutboxStore(await backend.open());
    const a1 = await outbox.add({ channel: "C1", kind: "post", payload: { text: "a1" } }, AT);
    const a2 = await outbox.add(
      { channel: "C1", kind: "card", clusterUid: "u1", payload: { text: "a2" } },
      "2026-01-01T00:00:01.000Z",
    );
    const b1 = await outbox.add({ channel: "C2", kind: "post", payload: { text: "b1" } }, AT);
    expect(typeof a1).toBe("number");
    expect(a2).toBeGreaterThan(a1);
    expect((await outbox.heads()).map((row) => [row.id, row.channel])).toEqual([
      [a1, "C1"],
      [b1, "C2"],
    ]);
    await outbox.retryLater(a1, 5_000_000_000_000);
    await outbox.usePlainText(a1);
    await outbox.setStep(a1, 1);
    const [head] = await outbox.heads();
    expect(head).toMatchObject({
      id: a1,
      payload: { text: "a1" },
      attempts: 1,
      nextAttemptAt: 5_000_000_000_000,
      step: 1,
      plainText: true,
      createdAt: AT,
    });
    expect(head!.clusterUid).toBeUndefined();
    expect(await outbox.pendingCount()).toBe(3);
    expect(await outbox.pendingCount("C1")).toBe(2);

    await outbox.deadLetter(a1, "too_many_attempts", AT);
    expect(await outbox.parkChannel("C1", "channel_not_found")).toBe(1);
    expect(await outbox.undelivered("C1")).toEqual([
      { status: "dead", reason: "too_many_attempts", count: 1 },
      { status: "held", reason: "channel_not_found", count: 1 },
    ]);
    expect(await outbox.stats(Date.parse(AT) + 10_000)).toEqual({
      depth: 1,
      oldestAgeSeconds: 10,
      deadLetters: 1,
      parked: 1,
    });
    expect(await outbox.requeue("C1", { heldOnly: true })).toBe(1);
    expect(await outbox.requeue("C1")).toBe(1);
    const [again] = await outbox.heads();
    expect(again).toMatchObject({ id: a1, attempts: 0, nextAttemptAt: 0, plainText: false });

    await outbox.markSent(a1, "2026-01-01T00:00:05.000Z");
    await outbox.deferTo(a2, 42);
    expect((await outbox.heads()).find((row) => row.channel === "C1")).toMatchObject({
      id: a2,
      nextAttemptAt: 42,
      clusterUid: "u1",
    });
    expect(await outbox.prune("2026-01-01T00:00:06.000Z")).toBe(1);
    expect(await outbox.pendingCount()).toBe(2);
  });

  it("CardStore: one card per (channel, cluster), by ts, payload kept when left out", async () => {
    const cards = new CardStore(await backend.open());
    const payload = { clusterUid: "u1", name: "web", text: "down" } as never;
    await cards.put({ channel: "C1", clusterUid: "u2", ts: "2.0" }, AT);
    await cards.put({ channel: "C1", clusterUid: "u1", ts: "1.0", payload }, AT);
    await cards.put(
      { channel: "C1", clusterUid: "u1", ts: "1.5", threadTs: "1.0", owner: "launch" },
      AT,
    );
    expect(await cards.get("C1", "u1")).toEqual({
      channel: "C1",
      clusterUid: "u1",
      ts: "1.5",
      threadTs: "1.0",
      owner: "launch",
      payload,
    });
    expect((await cards.byTs("C1", "2.0"))?.clusterUid).toBe("u2");
    expect(await cards.byTs("C2", "2.0")).toBeUndefined();
    expect((await cards.inChannel("C1")).map((card) => card.clusterUid)).toEqual(["u1", "u2"]);
    await cards.setPayload("C1", "u2", payload);
    expect((await cards.get("C1", "u2"))?.payload).toEqual(payload);
    expect(await cards.count()).toBe(2);
    await cards.remove("C1", "u1");
    expect(await cards.count()).toBe(1);
  });

  it("AckStore: the first acknowledgement stands; clear says who had it", async () => {
    const acks = new AckStore(await backend.open());
    const at = Date.UTC(2026, 0, 1);
    expect(await acks.put("C1", "u1", { userId: "U1", at })).toEqual({ userId: "U1", at });
    expect(await acks.put("C1", "u1", { userId: "U2", at: at + 1 })).toEqual({ userId: "U1", at });
    expect(await acks.clear("C1", "u1")).toEqual({ userId: "U1", at });
    expect(await acks.clear("C1", "u1")).toBeUndefined();
    expect(await acks.get("C1", "u1")).toBeUndefined();
  });

  it("HoldStore: one hold per kind, soonest end first, due ones, kept news in order", async () => {
    const holds = new HoldStore(await backend.open());
    const now = Date.UTC(2026, 0, 1);
    const hold = (over: Partial<Hold>): Hold => ({
      channel: "C1",
      clusterUid: "u1",
      kind: "snooze",
      clusterName: "web",
      projectUid: "p1",
      userId: "U1",
      startedAt: now,
      untilMs: now + 60_000,
      ...over,
    });
    await holds.put(hold({ kind: "mute", untilMs: now + 3_600_000, reason: "maintenance" }));
    await holds.put(hold({}));
    await holds.put(hold({ clusterUid: "u2", untilMs: now - 1 }));
    await holds.put(hold({ untilMs: now + 120_000, userId: "U2" }));
    expect(
      (await holds.list("C1")).map((h) => `${h.clusterUid}:${h.kind}:${h.untilMs - now}`),
    ).toEqual(["u2:snooze:-1", "u1:snooze:120000", "u1:mute:3600000"]);
    expect(await holds.get("C1", "u1", "snooze")).toEqual(
      hold({ untilMs: now + 120_000, userId: "U2" }),
    );
    expect((await holds.get("C1", "u1", "mute"))?.reason).toBe("maintenance");
    expect((await holds.running(now)).length).toBe(2);
    expect((await holds.due(now)).map((h) => h.clusterUid)).toEqual(["u2"]);
    expect(await holds.remove("C1", "u2", "snooze")).toBe(true);
    expect(await holds.remove("C1", "u2", "snooze")).toBe(false);
    await holds.keep("C1", "u1", { n: 2 }, "2026-01-01T00:00:02.000Z");
    await holds.keep("C1", "u1", { n: 1 }, "2026-01-01T00:00:01.000Z");
    expect(await holds.kept("C1", "u1")).toEqual([
      { payload: { n: 2 }, at: "2026-01-01T00:00:02.000Z" },
      { payload: { n: 1 }, at: "2026-01-01T00:00:01.000Z" },
    ]);
    expect(await holds.forgetKept("C1", "u1")).toBe(2);
  });

  it("SubscriptionStore: add, find with and without filters, pause and resume", async () => {
    const subscriptions = new SubscriptionStore(await backend.open(), new ManualClock());
    const all = await subscriptions.add({ channel: "C1", kind: "all", createdBy: "U1" });
    const tagged = await subscriptions.add({
      channel: "C1",
      kind: "alerts",
      project: "p1",
      tag: "env:prod",
      createdBy: "U1",
    });
    await subscriptions.add({ channel: "C2", kind: "clusters", createdBy: "U2" });
    expect(all).toEqual({
      id: all.id,
      channel: "C1",
      kind: "all",
      project: undefined,
      tag: undefined,
      pausedReason: undefined,
      createdBy: "U1",
      createdAt: AT,
    });
    expect(typeof all.id).toBe("number");
    expect((await subscriptions.find("C1", "all"))?.id).toBe(all.id);
    expect((await subscriptions.find("C1", "alerts", "p1", "env:prod"))?.id).toBe(tagged.id);
    expect(await subscriptions.find("C1", "alerts", "p1")).toBeUndefined();
    expect(await subscriptions.get(tagged.id)).toEqual(tagged);
    expect(await subscriptions.pauseChannel("C1", "channel_not_found")).toBe(2);
    expect((await subscriptions.forChannel("C1")).map((s) => s.pausedReason)).toEqual([
      "channel_not_found",
      "channel_not_found",
    ]);
    await subscriptions.resume(all.id);
    expect(await subscriptions.resumeChannel("C1")).toBe(1);
    expect(await subscriptions.remove("C2", all.id)).toBe(false);
    expect(await subscriptions.remove("C1", all.id)).toBe(true);
    expect(await subscriptions.removeAll("C1")).toBe(1);
    expect((await subscriptions.all()).map((s) => s.channel)).toEqual(["C2"]);
  });

  it("LaunchStore: reserve once per submission and name, created, done frees the name", async () => {
    const clock = new ManualClock();
    const launches = new LaunchStore(await backend.open(), clock);
    const input = {
      submissionKey: "view-1",
      projectUid: "p1",
      provider: "aws",
      name: "web",
      requester: "U1",
      channel: "C1",
    };
    expect(await launches.lastId()).toBe(0);
    const first = await launches.reserve(input);
    expect(first.kind).toBe("reserved");
    const id = first.record.id;
    expect(first.record).toMatchObject({
      status: "submitting",
      done: false,
      createdAt: clock.now(),
    });
    expect((await launches.reserve(input)).kind).toBe("same_submission");
    expect((await launches.reserve({ ...input, submissionKey: "view-2" })).kind).toBe(
      "name_in_flight",
    );
    expect((await launches.submitting()).map((r) => r.id)).toEqual([id]);
    clock.advance(1000);
    expect(await launches.created(id, "cluster-1")).toBe(true);
    expect(await launches.created(id, "cluster-1")).toBe(false);
    await launches.setCard(id, "C9", "9.0");
    expect(await launches.open()).toEqual([
      expect.objectContaining({
        id,
        clusterUid: "cluster-1",
        cardTs: "9.0",
        channel: "C9",
        lastState: "Pending",
        updatedAt: clock.now(),
      }),
    ]);
    await launches.setState(id, "Running", true);
    expect(await launches.open()).toEqual([]);
    expect((await launches.get(id))?.done).toBe(true);
    const again = await launches.reserve({ ...input, submissionKey: "view-3" });
    expect(again.kind).toBe("reserved");
    expect(await launches.lastId()).toBe(again.record.id);
    await launches.release(again.record.id);
    expect((await launches.all()).map((r) => r.id)).toEqual([id]);
  });

  it("AuditLog: newest first, camelCase fields, detail null when absent", async () => {
    const clock = new ManualClock();
    const audit = new AuditLog(await backend.open(), clock);
    await audit.record({ userId: "U1", action: "read", target: "web", outcome: "granted" });
    clock.advance(1000);
    await audit.record({
      userId: "U2",
      action: "launch",
      target: "aws/web",
      outcome: "created",
      detail: '{"x":1}',
    });
    expect(await audit.recent(5)).toEqual([
      {
        at: "2026-01-01T00:00:01.000Z",
        userId: "U2",
        action: "launch",
        target: "aws/web",
        outcome: "created",
        detail: '{"x":1}',
      },
      { at: AT, userId: "U1", action: "read", target: "web", outcome: "granted", detail: null },
    ]);
    expect(await audit.recent(1)).toHaveLength(1);
  });
});
