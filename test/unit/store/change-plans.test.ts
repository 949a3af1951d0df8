import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import type { ChangePlan } from "../../../src/model/change.ts";
import { CHANGE_PLAN_TTL_MS, ChangePlanStore } from "../../../src/store/change-plans.ts";
import { BACKENDS, closeOpened } from "../../support/backends.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../../support/postgres.ts";

afterEach(closeOpened);

const plan: ChangePlan = {
  verb: "repave",
  cluster: { uid: "c1", name: "web", projectUid: "p1", cloudType: "aws", state: "Running" },
  reasons: Array.from({ length: 60 }, (_, i) => `reason ${i} `.repeat(10)),
} as ChangePlan;

describe.each(BACKENDS)(
  "open confirmations' plans on $name",
  { timeout: POSTGRES_SETUP_TIMEOUT_MS },
  (backend) => {
    it("keeps a plan of any length under a short random id, read back whole", async () => {
      const db = await backend.open();
      const store = new ChangePlanStore(db, new ManualClock(Date.UTC(2026, 10, 26)));
      const id = await store.put({ plan, channel: "C1", requester: "U1" });
      const other = await store.put({ plan, channel: "C1", requester: "U1" });
      expect(id.length).toBeLessThanOrEqual(64);
      expect(other).not.toBe(id);
      expect(await store.get(id)).toEqual({ plan, channel: "C1", requester: "U1" });
      expect(await store.get("not-an-id")).toBeUndefined();
    });

    it("a plan past its time is not read back, and is pruned when the next one is kept", async () => {
      const db = await backend.open();
      const clock = new ManualClock(Date.UTC(2026, 10, 26));
      const store = new ChangePlanStore(db, clock);
      const old = await store.put({ plan, channel: "C1", requester: "U1" });
      clock.advance(CHANGE_PLAN_TTL_MS - 1);
      expect(await store.get(old)).toBeDefined();
      clock.advance(1);
      expect(await store.get(old)).toBeUndefined();
      await store.put({ plan, channel: "C2", requester: "U2" });
      const rows = await db.all<{ id: string }>("SELECT id FROM change_plans");
      expect(rows.map((row) => row.id)).not.toContain(old);
      expect(rows).toHaveLength(1);
    });
  },
);
