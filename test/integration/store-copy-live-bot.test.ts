import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateStoreCli, restoreCli } from "../../src/app/store-copy.ts";
import { loadStoreConfig } from "../../src/config.ts";
import { rowsIn } from "../../src/store/copy.ts";
import { leaseFor, SINGLETONS_LEASE, sqliteFileLease } from "../../src/store/lease.ts";
import { openStore } from "../../src/store/open.ts";
import { openPostgres } from "../../src/store/postgres.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import { freshDatabase, POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";

/**
 * `migrate-store` and `restore` against a store a bot runs on (issue 38, review finding 3): a
 * live lease row (replica_lease in a SQLite file, leader_leases in PostgreSQL) on the source of
 * `migrate-store` or on the target of either is refused, naming `kubectl scale --replicas=0`,
 * and nothing is written; once the lease has lapsed the same copy goes through.
 */

const HOUR = 3_600_000;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "store-copy-live-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** a new SQLite store; its lease held by `holder` for an hour, if given */
async function sqliteStore(name: string, holder?: string): Promise<string> {
  const file = join(dir, name);
  const db = await openSqlite(file);
  try {
    if (holder) {
      const lease = await sqliteFileLease(db, SINGLETONS_LEASE);
      expect(await lease.tryAcquire(holder, HOUR, Date.now())).toBe(1);
    }
    return file;
  } finally {
    await db.close();
  }
}

async function lapse(file: string): Promise<void> {
  const db = await openSqlite(file);
  await db.run("UPDATE replica_lease SET expires_at = 0");
  await db.close();
}

function run(verb: (write: (line: string) => void) => Promise<number>) {
  const out: string[] = [];
  return verb((line) => out.push(line)).then((code) => ({ code, text: out.join("\n") }));
}

describe("a copy refuses a store a bot runs on", () => {
  it(
    "migrate-store: from a SQLite file whose lease is live, nothing copied; after it lapses, copied",
    async () => {
      const file = await sqliteStore("live-source.db", "palette-chatops-0");
      const { url } = await freshDatabase();

      const refused = await run((write) =>
        migrateStoreCli(["--from", file, "--to", url], {}, write),
      );
      expect(refused.code).toBe(1);
      expect(refused.text).toContain("replica palette-chatops-0 holds its lease singletons");
      expect(refused.text).toContain("kubectl scale deployment/<release> --replicas=0");
      const target = await openPostgres(url, { max: 1 });
      try {
        expect(await rowsIn(target)).toEqual([]);
      } finally {
        await target.close();
      }

      await lapse(file);
      const copied = await run((write) =>
        migrateStoreCli(["--from", file, "--to", url], {}, write),
      );
      expect(copied.text).not.toContain("refused");
      expect(copied.code).toBe(0);
    },
    POSTGRES_SETUP_TIMEOUT_MS,
  );

  it("restore: into a SQLite store whose lease is live, nothing restored", async () => {
    const backup = await sqliteStore("backup.db");
    const live = await sqliteStore("live-target.db", "palette-chatops-7d9f");
    const refused = await run((write) => restoreCli([backup], { STATE_DB: live }, write));
    expect(refused.code).toBe(1);
    expect(refused.text).toContain("a bot runs on the SQLite file");
    expect(refused.text).toContain("--replicas=0");

    await lapse(live);
    const restored = await run((write) => restoreCli([backup], { STATE_DB: live }, write));
    expect(restored.code).toBe(0);
  });

  it("restore: a backup that carries its bot's live lease (backup of a running bot) is taken", async () => {
    const backup = await sqliteStore("backup-of-running.db", "palette-chatops-0");
    const restored = await run((write) =>
      restoreCli([backup], { STATE_DB: join(dir, "new.db") }, write),
    );
    expect(restored.text).not.toContain("refused");
    expect(restored.code).toBe(0);
  });

  it(
    "restore: into PostgreSQL whose leader lease is live, nothing restored",
    async () => {
      const backup = await sqliteStore("backup-pg.db");
      const { url } = await freshDatabase();
      // opened as the bot opens it: migrated, so leader_leases is there
      const db = await openStore(loadStoreConfig({ DATABASE_URL: url }));
      try {
        expect(await leaseFor(db, SINGLETONS_LEASE).tryAcquire("pod-b", HOUR, Date.now())).toBe(1);
      } finally {
        await db.close();
      }
      const refused = await run((write) => restoreCli([backup], { DATABASE_URL: url }, write));
      expect(refused.code).toBe(1);
      expect(refused.text).toContain("a bot runs on PostgreSQL: replica pod-b");
      expect(refused.text).toContain("--replicas=0");
    },
    POSTGRES_SETUP_TIMEOUT_MS,
  );
});
