import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { startBot } from "../../src/app/bot.ts";
import { systemClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/log.ts";
import { SINGLETONS_LEASE, sqliteFileLease } from "../../src/store/lease.ts";
import { MIGRATIONS } from "../../src/store/migrations/index.ts";
import { openSqlite } from "../../src/store/sqlite.ts";

/**
 * A newer release started beside a live older one on the same SQLite file is refused the file
 * (issue 37 item 6) — and must be refused before it migrates it: the older process runs on, and a
 * schema changed under it is a schema it was not written for (review of issue 37, finding 5).
 */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** timers that fire at once: the claim's wait for the live lease's expiry is not the point here */
const atOnce = {
  after(_ms: number, task: () => void) {
    const timer = setTimeout(task, 0);
    return { cancel: () => clearTimeout(timer) };
  },
};

function appliedMigrations(path: string): number[] {
  const db = new Database(path, { readonly: true });
  try {
    return (
      db.prepare("SELECT id FROM schema_migrations ORDER BY id").all() as { id: number }[]
    ).map((row) => row.id);
  } finally {
    db.close();
  }
}

describe("a SQLite file held by a live older release", () => {
  it("a newer release is refused the file before it migrates it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sqlite-claim-before-migrate-"));
    dirs.push(dir);
    const path = join(dir, "state.sqlite");
    // the older release: one migration behind, holding the file's lease for the next ten minutes
    const older = await openSqlite(path, MIGRATIONS.slice(0, -1));
    const lease = await sqliteFileLease(older, SINGLETONS_LEASE);
    expect(await lease.tryAcquire("older-host/1/a", 10 * 60_000, Date.now())).toBeDefined();
    const before = appliedMigrations(path);
    const newest = MIGRATIONS.at(-1)!.id;
    expect(before).not.toContain(newest);

    const config = loadConfig({
      SLACK_BOT_TOKEN: "xoxb-claim-test",
      SLACK_SIGNING_SECRET: "claim-test-secret",
      SLACK_API_URL: "http://127.0.0.1:9/api/",
      PALETTE_API_URL: "http://127.0.0.1:9",
      PALETTE_API_KEY: "claim-test-key",
      STATE_DB: path,
      PORT: "0",
    });
    const started = await startBot(config, silentLogger, systemClock, {
      leaseTimers: atOnce,
    }).then(
      async (bot) => {
        await bot.stop();
        return "started";
      },
      (error: unknown) => (error as Error).name,
    );
    expect(started).toBe("SqliteFileShared");
    // the live holder's schema is as it was
    expect(appliedMigrations(path)).toEqual(before);
    await older.close();
  });
});
