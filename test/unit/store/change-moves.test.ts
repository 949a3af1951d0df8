import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import {
  CHANGE_STATES,
  type ChangePlan,
  type ChangeStatus,
  canMove,
} from "../../../src/model/change.ts";
import {
  type ChangeRecord,
  ChangeStore,
  standInDatabaseClock,
} from "../../../src/store/changes.ts";
import type { SqlDb } from "../../../src/store/sql.ts";
import { BACKENDS, closeOpened } from "../../support/backends.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../../support/postgres.ts";

/**
 * Every move the store performs, against the state table (issue 31, item 6): each of the store's
 * transition functions is driven from every state, and whatever row it moves must make a move
 * CHANGE_STATES allows; a move the table does not allow is refused before anything is written.
 */

afterEach(closeOpened);

const plan: ChangePlan = {
  verb: "delete",
  cluster: { uid: "c1", name: "web", projectUid: "p1", cloudType: "aws", state: "Running" },
};
const STATUSES = Object.keys(CHANGE_STATES) as ChangeStatus[];

let sequence = 0;

/** a row put in `status` straight in SQL (the way there is not what is tested) */
async function rowIn(
  db: SqlDb,
  store: ChangeStore,
  clock: ManualClock,
  status: ChangeStatus,
): Promise<ChangeRecord> {
  const claim = await store.create({
    requestKey: `k${++sequence}`,
    plan,
    requester: "U1",
    channel: "C1",
    status: "awaiting_approval",
    expiresAt: clock.now() + 60_000,
  });
  await db.run("UPDATE changes SET status = ? WHERE id = ?", [status, claim.record.id]);
  return (await store.get(claim.record.id))!;
}

type Transition = (store: ChangeStore, record: ChangeRecord, clock: ManualClock) => Promise<void>;

/** each function of the store that moves a row, as a caller would drive it */
const TRANSITIONS: Record<string, Transition> = {
  approve: async (store, record) => {
    await store.decide(record.id, "U2", "approve");
  },
  reject: async (store, record) => {
    await store.decide(record.id, "U2", "reject");
  },
  expireDue: async (store, _record, clock) => {
    clock.advance(120_000);
    await store.expireDue();
  },
  takeOver: async (store, record, clock) => {
    clock.advance(180_000);
    await store.takeOver(record.id, 120_000, "reading Palette");
  },
  ...Object.fromEntries(
    STATUSES.map((to) => [
      `move to ${to}`,
      async (store: ChangeStore, record: ChangeRecord) => {
        // the caller names the state it holds; a move the table forbids throws
        await store.move(record.id, record.status, to).catch(() => undefined);
      },
    ]),
  ),
};

describe.each(BACKENDS)(
  "the moves of a change on $name",
  { timeout: POSTGRES_SETUP_TIMEOUT_MS },
  (backend) => {
    it("every move the store makes is one CHANGE_STATES allows", async () => {
      const db = await backend.open();
      const clock = new ManualClock(Date.parse("2026-11-25T10:00:00Z"));
      // the heartbeats' and take-over's clock moves with the test's (PostgreSQL's own otherwise)
      standInDatabaseClock(db, clock);
      const store = new ChangeStore(db, clock);
      const made: string[] = [];
      for (const [name, transition] of Object.entries(TRANSITIONS)) {
        for (const from of STATUSES) {
          const record = await rowIn(db, store, clock, from);
          await transition(store, record, clock);
          const after = (await store.get(record.id))!.status;
          if (after === from) continue;
          made.push(`${name}: ${from} → ${after}`);
          expect(canMove(from, after), `${name} moved ${from} → ${after}`).toBe(true);
        }
      }
      // the store does make moves (the loop above is not vacuous)
      expect(made).toContain("approve: awaiting_approval → executing");
      expect(made).toContain("move to failed: awaiting_approval → failed");
      expect(made).toContain("takeOver: executing → unconfirmed");
    });

    it("a move outside the table throws and writes nothing", async () => {
      const db = await backend.open();
      const clock = new ManualClock(Date.parse("2026-11-25T10:00:00Z"));
      const store = new ChangeStore(db, clock);
      const done = await rowIn(db, store, clock, "done");
      await expect(store.move(done.id, "done", "failed")).rejects.toThrow(/cannot move/);
      const awaiting = await rowIn(db, store, clock, "awaiting_approval");
      await expect(store.move(awaiting.id, "awaiting_approval", "accepted")).rejects.toThrow(
        /cannot move/,
      );
      expect((await store.get(done.id))!.status).toBe("done");
      expect((await store.get(awaiting.id))!.status).toBe("awaiting_approval");
    });

    it("a card owed is kept until Slack takes it, leased to one sender, retried at its time", async () => {
      const db = await backend.open();
      const clock = new ManualClock(Date.parse("2026-11-25T10:00:00Z"));
      const store = new ChangeStore(db, clock);
      const record = await rowIn(db, store, clock, "accepted");
      const moved = await store.move(record.id, "accepted", "done", {
        reason: "5 Running",
        card: { status: "done", line: "5 Running", took: "1 m 0 s" },
      });
      expect(moved!.cardOwed!.value).toEqual({
        status: "done",
        line: "5 Running",
        took: "1 m 0 s",
      });
      expect(await store.owedDue("card", clock.now())).toEqual([record.id]);
      // one sender has it in hand: nobody else takes it meanwhile
      const taken = await store.takeOwed("card", record.id, 60_000);
      expect(taken).toBeDefined();
      expect(await store.takeOwed("card", record.id, 60_000)).toBeUndefined();
      // refused with Retry-After 30 s: due again then, not before
      await store.owedLater("card", record.id, clock.now() + 30_000);
      clock.advance(29_000);
      expect(await store.owedDue("card", clock.now())).toEqual([]);
      clock.advance(1_000);
      const again = await store.takeOwed("card", record.id, 60_000);
      expect(again!.record.cardOwed!.tries).toBe(1);
      // something newer owed while this one is in hand: it stays owed after the older is shown
      await store.owe("card", record.id, { status: "done", line: "newer" });
      expect(await store.owedShown("card", record.id, again!.record.cardOwed!.raw)).toBe(false);
      expect(await store.owedDue("card", clock.now())).toEqual([record.id]);
      const newer = await store.takeOwed("card", record.id, 60_000);
      expect(newer!.record.cardOwed!.value.line).toBe("newer");
      expect(await store.owedShown("card", record.id, newer!.record.cardOwed!.raw)).toBe(true);
      expect((await store.get(record.id))!.cardOwed).toBeUndefined();
      // the request card's slot is its own
      await store.owe("request", record.id, { line: "did not run" });
      expect(await store.owedDue("request", clock.now())).toEqual([record.id]);
      expect(await store.owedDue("card", clock.now())).toEqual([]);
    });
  },
);
