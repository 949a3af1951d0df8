import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import type { ChangePlan } from "../../../src/model/change.ts";
import { AuditLog } from "../../../src/store/audit.ts";
import { ChangeStore } from "../../../src/store/changes.ts";
import { readClusterRecord } from "../../../src/store/cluster-record.ts";
import { FreezeStore } from "../../../src/store/freezes.ts";
import { LaunchStore } from "../../../src/store/launches.ts";
import { BACKENDS, closeOpened } from "../../support/backends.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../../support/postgres.ts";

afterEach(closeOpened);

const UID = "c0ffee0000000000000000aa";
const OTHER = "beef00000000000000000000";
const plan = (uid: string): ChangePlan =>
  ({
    verb: "scale",
    cluster: { uid, name: "web", projectUid: "p1", cloudType: "aws", state: "Running" },
    configUid: "cfg",
    pool: "worker",
    from: 3,
    to: 5,
  }) as ChangePlan;

describe.each(BACKENDS)(
  "the bot's record of a cluster on $name",
  { timeout: POSTGRES_SETUP_TIMEOUT_MS },
  (backend) => {
    it("reads its launch, changes, acks, snoozes, mutes and freezes in the range, and nothing of another cluster", async () => {
      const db = await backend.open();
      const clock = new ManualClock(Date.parse("2026-11-25T10:00:00Z"));
      const start = clock.now();
      const launches = new LaunchStore(db, clock);
      const reserved = await launches.reserve({
        submissionKey: "k1",
        projectUid: "p1",
        provider: "aws",
        name: "web",
        requester: "U1",
        channel: "C1",
      });
      if (reserved.kind !== "reserved") throw new Error("not reserved");
      await launches.created(reserved.record.id, UID);
      clock.advance(60_000);
      const changes = new ChangeStore(db, clock);
      await changes.create({
        requestKey: "a",
        plan: plan(UID),
        requester: "U2",
        channel: "C1",
        status: "executing",
      });
      await changes.create({
        requestKey: "b",
        plan: plan(OTHER),
        requester: "U3",
        channel: "C1",
        status: "executing",
      });
      const audit = new AuditLog(db, clock);
      await audit.record({
        userId: "U4",
        action: "ack",
        target: `web (${UID})`,
        outcome: "granted",
      });
      await audit.record({
        userId: "U5",
        action: "mute",
        target: "C1 web",
        outcome: "granted",
        detail: JSON.stringify({ clusterUid: UID }),
      });
      await audit.record({
        userId: "U6",
        action: "ack",
        target: `other (${OTHER})`,
        outcome: "granted",
      });
      // a hold on a cluster whose UID has a LIKE wildcard in it is not matched by accident
      await audit.record({
        userId: "U7",
        action: "snooze",
        target: "C1 x",
        outcome: "granted",
        detail: "%",
      });
      const freezes = new FreezeStore(db, clock);
      await freezes.add({
        scope: { kind: "project", uid: "p1" },
        untilMs: clock.now() + 3600_000,
        reason: "release",
        frozenBy: "U8",
      });
      await freezes.add({
        scope: { kind: "project", uid: "p2" },
        untilMs: clock.now() + 3600_000,
        reason: "other",
        frozenBy: "U9",
      });
      await freezes.add({
        scope: { kind: "cluster", uid: UID, name: "web" },
        untilMs: clock.now() + 3600_000,
        reason: "mine",
        frozenBy: "U10",
      });

      const record = await readClusterRecord(
        db,
        { uid: UID, projectUid: "p1" },
        { sinceMs: start - 1, untilMs: clock.now() + 1 },
      );
      expect(record.launches).toMatchObject([{ requester: "U1", provider: "aws", name: "web" }]);
      expect(record.changes).toMatchObject([
        { requester: "U2", verb: "scale", status: "executing" },
      ]);
      expect(record.changes[0]!.plan).toMatchObject({ pool: "worker", from: 3, to: 5 });
      expect(record.holds.map((hold) => `${hold.userId} ${hold.action}`).sort()).toEqual([
        "U4 ack",
        "U5 mute",
      ]);
      expect(record.freezes.map((freeze) => freeze.frozenBy).sort()).toEqual(["U10", "U8"]);

      // a range that ends before any of it: nothing
      const before = await readClusterRecord(
        db,
        { uid: UID, projectUid: "p1" },
        { sinceMs: start - 7_200_000, untilMs: start - 3_600_000 },
      );
      expect(before).toEqual({ launches: [], changes: [], holds: [], freezes: [] });
    });
  },
);
