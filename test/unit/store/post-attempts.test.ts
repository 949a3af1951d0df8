import { afterEach, describe, expect, it } from "vitest";
import { databaseNowMs, PostAttemptStore } from "../../../src/store/post-attempts.ts";
import { BACKENDS, closeOpened } from "../../support/backends.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../../support/postgres.ts";

/** Issue 37 item 1: markers a crash left behind go by their age on the database's clock. */

afterEach(closeOpened);

const HOUR = 3_600_000;

describe.each(BACKENDS)(
  "attempt markers on $name",
  { timeout: POSTGRES_SETUP_TIMEOUT_MS },
  (backend) => {
    it("pruneOlderThan deletes markers older than the age given, by the database's clock", async () => {
      const db = await backend.open();
      const store = new PostAttemptStore(db, db.dialect);
      const now = Number(
        (await db.get<{ now: number | string }>(`SELECT ${databaseNowMs(db.dialect)} AS now`))!.now,
      );
      for (const [key, age] of [
        ["old", 25 * HOUR],
        ["young", 23 * HOUR],
      ] as const) {
        await db.run(
          "INSERT INTO post_attempts (key, channel, thread_ts, token, at_ms) VALUES (?, ?, NULL, ?, ?)",
          [key, "C1", `t-${key}`, now - age],
        );
      }
      await store.mark({ key: "fresh", channel: "C1", token: "t-fresh" });
      expect(await store.pruneOlderThan(24 * HOUR)).toBe(1);
      expect(await store.get("old")).toBeUndefined();
      expect((await store.get("young"))?.token).toBe("t-young");
      expect((await store.get("fresh"))?.token).toBe("t-fresh");
    });
  },
);
