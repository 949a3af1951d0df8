import type { ManualClock } from "../../src/clock.ts";
import { ChangeStore } from "../../src/store/changes.ts";
import { NOT_COPIED, tablesOf } from "../../src/store/copy.ts";
import type { SqlDb } from "../../src/store/sql.ts";

/**
 * Every row of every table a store copy carries (src/store/copy.ts), sorted, with numbers as
 * numbers (pg reads BIGINT as text), so a SQLite store and a PostgreSQL one compare equal when
 * they hold the same rows.
 */
export async function dumpStore(db: SqlDb): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  const normal = (value: unknown) =>
    typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : value;
  for (const table of await tablesOf(db)) {
    if (NOT_COPIED.has(table)) continue;
    const rows = await db.all<Record<string, unknown>>(`SELECT * FROM "${table}"`);
    out[table] = rows
      .map((row) =>
        JSON.stringify(
          Object.keys(row)
            .sort()
            .map((key) => [key, normal(row[key])]),
        ),
      )
      .sort();
  }
  return out;
}

/** A delete of cluster `web` waiting for a second person's approval (APPROVAL_REQUIRED). */
export async function pendingDelete(
  db: SqlDb,
  clock: ManualClock,
  requestKey: string,
  channel: string,
): Promise<void> {
  await new ChangeStore(db, clock).create({
    requestKey,
    plan: {
      verb: "delete",
      cluster: { uid: "c1", name: "web", projectUid: "p1", cloudType: "aws", state: "Running" },
    },
    requester: "W1",
    channel,
    status: "awaiting_approval",
  });
}
