import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  claimSqliteFile,
  holderGoneOnThisHost,
  SqliteFileShared,
} from "../../../src/app/sole-replica.ts";
import { ManualClock } from "../../../src/clock.ts";
import { sqliteFileLease } from "../../../src/store/lease.ts";
import type { SqlDb } from "../../../src/store/sql.ts";
import { openSqlite } from "../../../src/store/sqlite.ts";
import { ManualTimers } from "../../support/manual-timers.ts";

/**
 * One process per SQLite file (issue 32): the lease kept in the file itself, and the claim a
 * process makes at start: a live holder that renews makes it stop, naming the file and why; a
 * holder that crashed does not (its lease runs out).
 */

const TTL = 15_000;
/** lets the claim's read of the lease settle, so its timer is armed before time moves */
const flush = () => new Promise((resolve) => setImmediate(resolve));
let dir: string;
const open: SqlDb[] = [];

afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function twoProcesses() {
  dir = mkdtempSync(join(tmpdir(), "sole-replica-"));
  const path = join(dir, "state.sqlite");
  const a = await openSqlite(path);
  const b = await openSqlite(path);
  open.push(a, b);
  return {
    path,
    first: await sqliteFileLease(a, "singletons"),
    second: await sqliteFileLease(b, "singletons"),
  };
}

describe("the lease in a SQLite file", () => {
  it("is held by one process at a time, seen by another connection to the file", async () => {
    const { first, second } = await twoProcesses();
    const now = Date.UTC(2026, 0, 1);
    expect(await first.tryAcquire("a", TTL, now)).toBe(1);
    expect(await second.tryAcquire("b", TTL, now + 1_000)).toBeUndefined();
    expect(await second.current(now + 1_000)).toEqual({
      holder: "a",
      token: 1,
      expiresAt: now + TTL,
    });
    // renewed: the same token; run out: the next holder gets a new one
    expect(await first.tryAcquire("a", TTL, now + 5_000)).toBe(1);
    expect(await second.tryAcquire("b", TTL, now + 5_000 + TTL)).toBe(2);
    await second.release("b", 2);
    expect(await first.current(now + 5_000 + TTL + 1)).toBeUndefined();
  });
});

describe("claimSqliteFile", () => {
  it("stops a second process while the first keeps renewing, naming the file and why", async () => {
    const { path, first, second } = await twoProcesses();
    const clock = new ManualClock();
    const timers = new ManualTimers(clock);
    await first.tryAcquire("pod-a", TTL, clock.now());
    const claim = claimSqliteFile({ lease: second, holder: "pod-b", path, clock, timers });
    const outcome = claim.then(
      () => "started",
      (error: unknown) => error,
    );
    await flush();
    // the first process renews every 5 s, as its elector does
    for (let step = 0; step < 4; step += 1) {
      await timers.advance(5_000, async () => {});
      await first.tryAcquire("pod-a", TTL, clock.now());
    }
    await timers.advance(5_000);
    const error = await outcome;
    expect(error).toBeInstanceOf(SqliteFileShared);
    const message = (error as Error).message;
    expect(message).toContain(path);
    expect(message).toContain("pod-a");
    expect(message).toContain("DATABASE_URL");
    expect(message).toMatch(/different hosts/);
  });

  it("lets a process start after one that crashed: its lease runs out", async () => {
    const { path, first, second } = await twoProcesses();
    const clock = new ManualClock();
    const timers = new ManualTimers(clock);
    await first.tryAcquire("crashed", TTL, clock.now());
    let done = false;
    const claim = claimSqliteFile({ lease: second, holder: "next", path, clock, timers }).then(
      () => {
        done = true;
      },
    );
    await flush();
    await timers.advance(TTL - 1);
    await flush();
    expect(done).toBe(false);
    await timers.advance(1_001);
    await claim;
    expect(done).toBe(true);
  });

  it("goes on at once when the file's lease is free or its own", async () => {
    const { path, first } = await twoProcesses();
    const clock = new ManualClock();
    const timers = new ManualTimers(clock);
    await claimSqliteFile({ lease: first, holder: "me", path, clock, timers });
    await first.tryAcquire("me", TTL, clock.now());
    await claimSqliteFile({ lease: first, holder: "me", path, clock, timers });
  });

  it("goes on at once after a process of this host that is gone (a restart after a kill)", async () => {
    const { path, first, second } = await twoProcesses();
    const clock = new ManualClock();
    const timers = new ManualTimers(clock);
    await first.tryAcquire("this-host/4242/abcd", TTL, clock.now());
    const asked: string[] = [];
    await claimSqliteFile({
      lease: second,
      holder: "this-host/4343/ef01",
      path,
      clock,
      timers,
      holderGone: (holder) => {
        asked.push(holder);
        return true;
      },
    });
    expect(asked).toEqual(["this-host/4242/abcd"]);
    // the dead process's lease is ended, so this one leads now, not a TTL later
    expect(await second.tryAcquire("this-host/4343/ef01", TTL, clock.now())).toBe(2);
  });
});

describe("holderGoneOnThisHost", () => {
  const self = { host: "pod-a", pid: 100, alive: (pid: number) => pid === 100 || pid === 200 };

  it("is gone when it names this host and a process that no longer runs", () => {
    expect(holderGoneOnThisHost("pod-a/300/abcd", self)).toBe(true);
  });

  it("is gone when it names this host and this very process id: a restarted container's PID 1", () => {
    expect(holderGoneOnThisHost("pod-a/100/abcd", self)).toBe(true);
  });

  it("is not gone while its process runs on this host", () => {
    expect(holderGoneOnThisHost("pod-a/200/abcd", self)).toBe(false);
  });

  it("is not known to be gone on another host, or when the id is not the bot's form", () => {
    expect(holderGoneOnThisHost("pod-b/300/abcd", self)).toBe(false);
    expect(holderGoneOnThisHost("crashed", self)).toBe(false);
    expect(holderGoneOnThisHost("pod-a/x/abcd", self)).toBe(false);
  });
});
