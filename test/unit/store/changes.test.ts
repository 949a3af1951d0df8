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

    it("prunes ended changes older than a time, never one still open (CHANGES_RETENTION_DAYS)", async () => {
      const db = await backend.open();
      const clock = new ManualClock(Date.parse("2026-01-01T10:00:00Z"));
      const store = new ChangeStore(db, clock);
      const made = async (key: string, status: "executing" | "awaiting_approval") =>
        (await store.create({ requestKey: key, plan, requester: "U1", channel: "C1", status }))
          .record;
      const done = await made("slack:old-done", "executing");
      await store.move(done.id, "executing", "accepted");
      await store.move(done.id, "accepted", "done");
      const rejected = await made("slack:old-rejected", "awaiting_approval");
      await store.move(rejected.id, "awaiting_approval", "rejected");
      // open for a year: a change that never ended is never pruned
      const open = await made("slack:old-open", "executing");
      await store.move(open.id, "executing", "accepted");
      clock.advance(400 * 86_400_000);
      const recent = await made("slack:recent", "executing");
      await store.move(recent.id, "executing", "failed");
      const pruned = await store.prune(clock.now() - 30 * 86_400_000);
      expect(pruned).toBe(2);
      expect((await store.all()).map((change) => change.requestKey).sort()).toEqual([
        "slack:old-open",
        "slack:recent",
      ]);
    });

    it("reads a cluster's changes by an index on cluster_uid (why reads them by cluster)", async () => {
      const db = await backend.open();
      if (db.dialect === "sqlite") {
        const plan = await db.all<{ detail: string }>(
          "EXPLAIN QUERY PLAN SELECT id FROM changes WHERE cluster_uid = ? AND created_at <= ?",
          ["c1", 0],
        );
        expect(plan.map((row) => row.detail).join(" ")).toContain("changes_cluster_uid");
      } else {
        const indexes = await db.all<{ indexdef: string }>(
          "SELECT indexdef FROM pg_indexes WHERE tablename = 'changes'",
        );
        expect(indexes.map((row) => row.indexdef).join(" ")).toMatch(
          /changes_cluster_uid ON .*\(cluster_uid\)/,
        );
      }
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
