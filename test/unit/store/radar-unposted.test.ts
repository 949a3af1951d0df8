import { afterEach, describe, expect, it } from "vitest";
import { RadarStore } from "../../../src/store/radar.ts";
import type { SqlDb } from "../../../src/store/sql.ts";
import { BACKENDS, closeOpened } from "../../support/backends.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../../support/postgres.ts";

/**
 * Before each post the notifier asks, in a fenced transaction, which of its claims are still
 * unposted. In a storm a channel holds hundreds of claims: only the keys about to be posted are
 * read, not all of them before every post (review of issue 37, finding 9).
 */

afterEach(closeOpened);

/** the rows each SELECT of radar_notices returned, counted */
function countingRows(db: SqlDb): { db: SqlDb; rowsRead: () => number } {
  let rows = 0;
  const counted = new Proxy(db, {
    get(target, property, receiver) {
      if (property === "all") {
        return async (sql: string, params?: unknown[]) => {
          const found = await target.all(sql, params as never);
          if (/FROM radar_notices/.test(sql)) rows += found.length;
          return found;
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db: counted, rowsRead: () => rows };
}

describe.each(BACKENDS)(
  "unposted claims on $name",
  { timeout: POSTGRES_SETUP_TIMEOUT_MS },
  (backend) => {
    it("reads only the keys asked about, in chunks, and answers which are still unposted", async () => {
      const raw = await backend.open();
      const setup = new RadarStore(raw);
      // 450 claims in one channel (more than two chunks), one of them posted, one in another channel
      for (let i = 0; i < 450; i += 1) {
        await setup.claimNotice("CR", `c-${i}`, "certificates", "shown", 1_000, 0);
      }
      await setup.noticePosted("CR", "c-1", "certificates", "1.000", 2_000);
      await setup.claimNotice("CX", "c-2", "certificates", "shown", 1_000, 0);

      const { db, rowsRead } = countingRows(raw);
      const store = new RadarStore(db);
      const one = await store.unposted("CR", [{ clusterUid: "c-0", kind: "certificates" }]);
      expect([...one]).toEqual(["c-0 certificates"]);
      expect(rowsRead()).toBe(1);

      const asked = [0, 1, 2, 449].map((i) => ({
        clusterUid: `c-${i}`,
        kind: "certificates" as const,
      }));
      const some = await store.unposted("CR", asked);
      // c-1 is posted; c-2 of CR is claimed (CX's is another channel's)
      expect([...some].sort()).toEqual([
        "c-0 certificates",
        "c-2 certificates",
        "c-449 certificates",
      ]);

      const all = Array.from({ length: 450 }, (_, i) => ({
        clusterUid: `c-${i}`,
        kind: "certificates" as const,
      }));
      expect((await store.unposted("CR", all)).size).toBe(449);
      expect(await store.unposted("CR", [])).toEqual(new Set());
    });
  },
);
