import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { CardStore } from "../../../src/store/cards.ts";
import { EventClaimStore } from "../../../src/store/event-claims.ts";
import { BACKENDS, closeOpened } from "../../support/backends.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../../support/postgres.ts";

afterEach(closeOpened);

describe.each(BACKENDS)(
  "event claims on $name",
  { timeout: POSTGRES_SETUP_TIMEOUT_MS },
  (backend) => {
    it("gives a key to exactly one of many claimers at once", async () => {
      const db = await backend.open();
      const clock = new ManualClock(Date.parse("2026-11-24T10:00:00Z"));
      // two replicas: two stores over the same database
      const replicas = [new EventClaimStore(db, clock), new EventClaimStore(db, clock)];
      const wins = await Promise.all(
        Array.from({ length: 10 }, (_, i) => replicas[i % 2]!.claim("Ev123ABC456")),
      );
      expect(wins.filter(Boolean)).toHaveLength(1);
      expect(await replicas[0]!.claim("Ev0PV52K21")).toBe(true);
    });

    it("forgets claims older than a day when pruned", async () => {
      const db = await backend.open();
      const clock = new ManualClock(Date.parse("2026-11-24T10:00:00Z"));
      const claims = new EventClaimStore(db, clock);
      await claims.claim("old");
      clock.advance(25 * 60 * 60_000);
      await claims.claim("new");
      expect(await claims.prune()).toBe(1);
      expect(await claims.claim("new")).toBe(false);
      expect(await claims.claim("old")).toBe(true);
    });

    it("finds a card by its message's ts through an index", async () => {
      const db = await backend.open();
      const cards = new CardStore(db);
      await cards.put(
        { channel: "C1", clusterUid: "u1", ts: "1700000001.000001" },
        "2026-11-24T10:00:00Z",
      );
      expect((await cards.byTs("C1", "1700000001.000001"))?.clusterUid).toBe("u1");
      // SQLite's plan names the index it uses; PostgreSQL's planner skips indexes on tiny tables,
      // so there the index must simply exist
      const plan =
        backend.name === "sqlite"
          ? await db.all(
              "EXPLAIN QUERY PLAN SELECT cluster_uid FROM notify_cards WHERE channel = ? AND ts = ?",
              ["C1", "x"],
            )
          : await db.all("SELECT indexname FROM pg_indexes WHERE tablename = 'notify_cards'");
      expect(JSON.stringify(plan)).toContain("notify_cards_ts");
    });
  },
);
