import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import type { ChangePlan } from "../../../src/model/change.ts";
import { ChangeStore } from "../../../src/store/changes.ts";
import { FreezeStore } from "../../../src/store/freezes.ts";
import { BACKENDS, closeOpened } from "../../support/backends.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../../support/postgres.ts";

afterEach(closeOpened);

const plan: ChangePlan = {
  verb: "delete",
  cluster: { uid: "c1", name: "web", projectUid: "p1", cloudType: "aws", state: "Running" },
};

describe.each(BACKENDS)(
  "changes and freezes on $name",
  { timeout: POSTGRES_SETUP_TIMEOUT_MS },
  (backend) => {
    it("records one change per confirmation key, however many submits arrive at once", async () => {
      const db = await backend.open();
      const clock = new ManualClock(Date.parse("2026-11-25T10:00:00Z"));
      const replicas = [new ChangeStore(db, clock), new ChangeStore(db, clock)];
      const claims = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          replicas[i % 2]!.create({
            requestKey: "slack:V1",
            plan,
            requester: "U1",
            channel: "C1",
            status: "executing",
          }),
        ),
      );
      expect(claims.filter((claim) => claim.kind === "created")).toHaveLength(1);
      expect(await replicas[0]!.all()).toHaveLength(1);
    });

    it("lets exactly one of many decisions land, and none after the request expired", async () => {
      const db = await backend.open();
      const clock = new ManualClock(Date.parse("2026-11-25T10:00:00Z"));
      const replicas = [new ChangeStore(db, clock), new ChangeStore(db, clock)];
      const { record } = await replicas[0]!.create({
        requestKey: "slack:V2",
        plan,
        requester: "U1",
        channel: "C1",
        status: "awaiting_approval",
        expiresAt: clock.now() + 60_000,
      });
      const decisions = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          replicas[i % 2]!.decide(record.id, `U${i + 2}`, i % 3 === 0 ? "reject" : "approve"),
        ),
      );
      expect(decisions.filter((decided) => decided !== undefined)).toHaveLength(1);

      const late = await replicas[0]!.create({
        requestKey: "slack:V3",
        plan,
        requester: "U1",
        channel: "C1",
        status: "awaiting_approval",
        expiresAt: clock.now() + 60_000,
      });
      clock.advance(60_000);
      expect(await replicas[1]!.decide(late.record.id, "U2", "approve")).toBeUndefined();
      expect((await replicas[0]!.expireDue()).map((r) => r.id)).toEqual([late.record.id]);
      expect(await replicas[0]!.expireDue()).toEqual([]);
    });

    it("moves a change only from the status it is in", async () => {
      const db = await backend.open();
      const clock = new ManualClock(Date.parse("2026-11-25T10:00:00Z"));
      const store = new ChangeStore(db, clock);
      const { record } = await store.create({
        requestKey: "slack:V4",
        plan,
        requester: "U1",
        channel: "C1",
        status: "executing",
      });
      expect(await store.move(record.id, "executing", "accepted")).toMatchObject({
        status: "accepted",
      });
      expect(await store.move(record.id, "executing", "failed")).toBeUndefined();
      const ends = await Promise.all([
        store.move(record.id, "accepted", "done", { reason: "deleted" }),
        store.move(record.id, "accepted", "done", { reason: "deleted" }),
      ]);
      expect(ends.filter(Boolean)).toHaveLength(1);
      expect(await store.following()).toEqual([]);
    });

    it("keeps freezes until they end or are lifted", async () => {
      const db = await backend.open();
      const clock = new ManualClock(Date.parse("2026-11-25T10:00:00Z"));
      const freezes = new FreezeStore(db, clock);
      await freezes.add({
        scope: { kind: "all" },
        untilMs: clock.now() + 3_600_000,
        reason: "x",
        frozenBy: "U1",
      });
      await freezes.add({
        scope: { kind: "cluster", uid: "c1", name: "web" },
        untilMs: clock.now() + 60_000,
        reason: "release",
        frozenBy: "U2",
      });
      expect((await freezes.active()).map((f) => f.scope.kind)).toEqual(["all", "cluster"]);
      clock.advance(60_000);
      expect((await freezes.active()).map((f) => f.scope.kind)).toEqual(["all"]);
      expect(await freezes.lift({ kind: "project", uid: "p1" }, "U3")).toEqual([]);
      expect((await freezes.lift({ kind: "all" }, "U3")).length).toBe(1);
      expect(await freezes.active()).toEqual([]);
    });
  },
);
