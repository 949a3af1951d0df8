import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backupCli, restoreCli } from "../../src/app/store-copy.ts";
import { ManualClock } from "../../src/clock.ts";
import { Secret } from "../../src/secret.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { IdentityStore } from "../../src/store/identities.ts";
import { IdentityCipher } from "../../src/store/identity-cipher.ts";
import { openStore } from "../../src/store/open.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import { SubscriptionStore } from "../../src/store/subscriptions.ts";
import { freshDatabase, POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";
import { spawnCli } from "../support/start-process-harness.ts";
import { dumpStore, pendingDelete } from "../support/store-dump.ts";

/**
 * `palette-chatops backup <file>` and `restore <file>` (issue 38 item 5) on both backends: the
 * backup is a SQLite file whatever the store, the restore copies it into a new or empty store,
 * every row and id as it was; a backup over a file, a restore into a store with rows, a backup
 * file that is not there are each refused with one line and exit 1.
 */

const KEY = Buffer.alloc(32, 9).toString("base64");
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "backup-restore-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function seed(db: SqlDb): Promise<void> {
  const clock = new ManualClock(Date.UTC(2026, 10, 1));
  const subscriptions = new SubscriptionStore(db, clock);
  const audit = new AuditLog(db, clock);
  for (let i = 0; i < 3; i++) {
    await subscriptions.add({ channel: `C0B${i}`, kind: "all", createdBy: "W1" });
    await audit.record({ userId: "W1", action: "ack", target: `t${i}`, outcome: "granted" });
  }
  await pendingDelete(db, clock, "waiting", "C0B0");
  await new IdentityStore(db, new IdentityCipher(new Secret(KEY)), clock).put({
    slackUserId: "W9",
    paletteUserUid: "u9",
    paletteUserName: "nine",
    method: "key",
    apiKey: new Secret("the-key-of-W9"),
  });
}

async function dumpOf(store: Record<string, string>): Promise<Record<string, string[]>> {
  const db = await openStore(
    store.DATABASE_URL
      ? { kind: "postgres", url: new Secret(store.DATABASE_URL) }
      : { kind: "sqlite", path: store.STATE_DB! },
  );
  try {
    return await dumpStore(db);
  } finally {
    await db.close();
  }
}

const run = async (verb: typeof backupCli, args: string[], env: Record<string, string>) => {
  const lines: string[] = [];
  const code = await verb(args, env, (line) => lines.push(line));
  return { code, text: lines.join("\n") };
};

describe("backup and restore", () => {
  it("SQLite: backs up a store, restores it into a new file, and refuses what would lose data", async () => {
    const store = { STATE_DB: join(dir, "live.sqlite") };
    const live = await openStore({ kind: "sqlite", path: store.STATE_DB });
    await seed(live);
    await live.close();
    const before = await dumpOf(store);

    const file = join(dir, "backup-1.sqlite");
    const backup = await run(backupCli, [file], store);
    expect(backup).toMatchObject({ code: 0 });
    expect(backup.text).toMatch(
      /backed up the SQLite file .*live\.sqlite to .*backup-1\.sqlite: \d+ rows/,
    );
    // never over an existing file
    expect(await run(backupCli, [file], store)).toEqual({
      code: 1,
      text: `refused: ${file} exists already; name a new file`,
    });

    const restored = { STATE_DB: join(dir, "restored.sqlite") };
    expect((await run(restoreCli, [file], restored)).code).toBe(0);
    expect(await dumpOf(restored)).toEqual(before);
    // into a store with rows: refused, nothing changed
    const into = await run(restoreCli, [file], store);
    expect(into.code).toBe(1);
    expect(into.text).toMatch(/^refused: the target store is not empty \(audit: 3, /);
    expect(await dumpOf(store)).toEqual(before);
    // a backup that is not there is not created empty
    const missing = join(dir, "no-such-backup.sqlite");
    expect(await run(restoreCli, [missing], restored)).toEqual({
      code: 1,
      text: `refused: the backup ${missing} does not exist`,
    });
    expect(existsSync(missing)).toBe(false);
  });

  it(
    "PostgreSQL: backs up to a SQLite file in one snapshot and restores it into an empty database",
    async () => {
      const source = { DATABASE_URL: (await freshDatabase()).url };
      const live = await openStore({ kind: "postgres", url: new Secret(source.DATABASE_URL) });
      await seed(live);
      await live.close();
      const before = await dumpOf(source);

      const file = join(dir, "backup-pg.sqlite");
      const backup = await run(backupCli, [file], source);
      expect(backup.code).toBe(0);
      expect(backup.text).not.toContain(source.DATABASE_URL);
      expect(await dumpOf({ STATE_DB: file })).toEqual(before);

      const target = { DATABASE_URL: (await freshDatabase()).url };
      expect((await run(restoreCli, [file], target)).code).toBe(0);
      expect(await dumpOf(target)).toEqual(before);
      // the restored database goes on: the next row takes the next id
      const db = await openStore({ kind: "postgres", url: new Secret(target.DATABASE_URL) });
      try {
        await new AuditLog(db, new ManualClock()).record({
          userId: "W2",
          action: "ack",
          target: "after restore",
          outcome: "granted",
        });
        const max = await db.get<{ id: string }>("SELECT MAX(id) AS id FROM audit");
        expect(Number(max?.id)).toBe(4);
      } finally {
        await db.close();
      }
    },
    POSTGRES_SETUP_TIMEOUT_MS,
  );

  it("is wired as verbs of the command line, with no Slack or Palette settings needed", async () => {
    const store = { STATE_DB: join(dir, "cli.sqlite") };
    const live = await openStore({ kind: "sqlite", path: store.STATE_DB });
    await seed(live);
    await live.close();
    const file = join(dir, "cli-backup.sqlite");
    const backup = spawnCli(["backup", file], store);
    expect((await backup.exited).code).toBe(0);
    expect(backup.stdout()).toContain(`to ${file}:`);
    const restore = spawnCli(["restore", file], store);
    expect((await restore.exited).code).toBe(1);
    expect(restore.stdout()).toMatch(/^refused: the target store is not empty/m);
  });
});
