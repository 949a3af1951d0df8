import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import type { ChangePlan } from "../../../src/model/change.ts";
import { ChangeStore, standInDatabaseClock } from "../../../src/store/changes.ts";
import type { SqlDb } from "../../../src/store/sql.ts";
import { BACKENDS, closeOpened } from "../../support/backends.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../../support/postgres.ts";

/**
 * Issue 37 item 2: an owed change card is leased by the database's clock to one sender, and that
 * sender's writes (the card's ts, "shown", "later") apply only while the lease is still its own.
 * A slow holder whose lease ran out and the sender that took the card next both posted, and the
 * later `setCard` won; a fresh card recorded over one already there left that one "executing…".
 */

afterEach(closeOpened);

const plan: ChangePlan = {
  verb: "delete",
  cluster: { uid: "c1", name: "web", projectUid: "p1", cloudType: "aws", state: "Running" },
};

const LEASE_MS = 60_000;

async function owingRow(
  db: SqlDb,
  clock: ManualClock,
): Promise<{ store: ChangeStore; id: number }> {
  const store = new ChangeStore(db, clock);
  const claim = await store.create({
    requestKey: `k${clock.now()}`,
    plan,
    requester: "U1",
    channel: "C1",
    status: "executing",
  });
  await store.owe("card", claim.record.id, { status: "executing", line: "sending" });
  return { store, id: claim.record.id };
}

describe.each(BACKENDS)(
  "an owed change card's lease on $name",
  { timeout: POSTGRES_SETUP_TIMEOUT_MS },
  (backend) => {
    it("a holder whose lease was taken writes nothing; the new holder's writes stand", async () => {
      const db = await backend.open();
      const clock = new ManualClock(Date.parse("2026-11-25T10:00:00Z"));
      standInDatabaseClock(db, clock);
      const { store, id } = await owingRow(db, clock);
      const slow = (await store.takeOwed("card", id, LEASE_MS))!;
      expect(await store.takeOwed("card", id, LEASE_MS)).toBeUndefined();
      clock.advance(LEASE_MS + 1);
      const next = (await store.takeOwed("card", id, LEASE_MS))!;
      expect(next.lease).not.toBe(slow.lease);
      const raw = slow.record.cardOwed!.raw;

      // the slow holder's answer comes now: none of its writes lands
      expect(await store.setCard(id, "C1", "111.000001", { lease: slow.lease, fresh: true })).toBe(
        false,
      );
      expect(await store.owedShown("card", id, raw, slow.lease)).toBe(true);
      await store.owedLater("card", id, clock.now() + 300_000, { lease: slow.lease });
      const meanwhile = (await store.get(id))!;
      expect(meanwhile.cardTs).toBeUndefined();
      expect(meanwhile.cardOwed).toEqual({ ...slow.record.cardOwed, tries: 0 });
      // still held by the next sender: nobody else takes it
      expect(await store.owedDue("card", clock.now())).toEqual([]);

      expect(await store.setCard(id, "C1", "222.000002", { lease: next.lease, fresh: true })).toBe(
        true,
      );
      expect(await store.owedShown("card", id, raw, next.lease)).toBe(true);
      const after = (await store.get(id))!;
      expect(after.cardTs).toBe("222.000002");
      expect(after.cardOwed).toBeUndefined();
    });

    it("a fresh card is not recorded over one the row already has", async () => {
      const db = await backend.open();
      const clock = new ManualClock(Date.parse("2026-11-25T10:00:00Z"));
      standInDatabaseClock(db, clock);
      const { store, id } = await owingRow(db, clock);
      await store.setCard(id, "C1", "111.000001");
      const taken = (await store.takeOwed("card", id, LEASE_MS))!;
      expect(await store.setCard(id, "C1", "222.000002", { lease: taken.lease, fresh: true })).toBe(
        false,
      );
      expect((await store.get(id))!.cardTs).toBe("111.000001");
      // a card that replaces one gone (the requester's DM) is recorded over it
      expect(await store.setCard(id, "U1", "333.000003", { lease: taken.lease })).toBe(true);
      expect((await store.get(id))!.cardChannel).toBe("U1");
    });

    it.runIf(backend.name === "postgres")(
      "the lease runs by the database's clock, not a replica's",
      async () => {
        const db = await backend.open();
        // a replica whose clock runs a minute ahead: its lease has not run out by the database's
        const clock = new ManualClock(Date.now());
        const { store, id } = await owingRow(db, clock);
        expect(await store.takeOwed("card", id, LEASE_MS)).toBeDefined();
        clock.advance(LEASE_MS + 1_000);
        expect(await store.takeOwed("card", id, LEASE_MS)).toBeUndefined();
        expect(await store.owedDue("card", clock.now())).toEqual([]);
      },
    );
  },
);
