/**
 * One bot process's claim on a SQLite file, as a child process a test can start twice and kill
 * (issue 37, item 6): opens STATE_DB, prints `{"ready":true}`, waits for a line on stdin (so two
 * children claim together), claims the file as the bot does at start (src/app/sole-replica.ts),
 * prints the outcome as a JSON line, and when granted renews the lease every TTL_MS / 4 as the
 * leader's elector would, until killed. Refused: exits 3.
 */
import { createInterface } from "node:readline";
import { claimSqliteFile, soleReplicaHolder, startupTimers } from "../../src/app/sole-replica.ts";
import { systemClock } from "../../src/clock.ts";
import { SINGLETONS_LEASE, sqliteFileLease } from "../../src/store/lease.ts";
import { openSqlite } from "../../src/store/sqlite.ts";

const path = process.env.STATE_DB!;
const ttlMs = Number(process.env.TTL_MS ?? 15_000);
const db = await openSqlite(path);
const lease = await sqliteFileLease(db, SINGLETONS_LEASE);
const holder = soleReplicaHolder();
const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);

say({ ready: true, pid: process.pid });
const input = createInterface({ input: process.stdin });
await new Promise<void>((resolve) => input.once("line", () => resolve()));
input.close();

try {
  await claimSqliteFile({
    lease,
    holder,
    path,
    clock: systemClock,
    timers: startupTimers,
    ttlMs,
    graceMs: 200,
  });
} catch (error) {
  say({ outcome: "refused", name: (error as Error).name, message: (error as Error).message });
  await db.close();
  process.exit(3);
}
say({ outcome: "started", holder, token: await lease.currentToken(Date.now()) });
setInterval(() => void lease.tryAcquire(holder, ttlMs, Date.now()), ttlMs / 4);
