import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  claimSqliteFile,
  holderGoneOnThisHost,
  SqliteFileShared,
  soleReplicaHolder,
  thisProcess,
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
    const claim = claimSqliteFile({
      lease: second,
      holder: "pod-b",
      path,
      clock,
      timers,
      ttlMs: TTL,
    });
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
    const claim = claimSqliteFile({
      lease: second,
      holder: "next",
      path,
      clock,
      timers,
      ttlMs: TTL,
    }).then(() => {
      done = true;
    });
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
    await claimSqliteFile({ lease: first, holder: "me", path, clock, timers, ttlMs: TTL });
    await first.tryAcquire("me", TTL, clock.now());
    await claimSqliteFile({ lease: first, holder: "me", path, clock, timers, ttlMs: TTL });
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
      ttlMs: TTL,
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
  const BOOT = "6f1c0e52-0d7e-4c55-9a3e-8a1b2c3d4e5f";
  const NS = "4026532001";
  /** pod-a's view: it is pid 100 (started at tick 5000); pid 200 runs, started at tick 7000 */
  const self = {
    host: "pod-a",
    pid: 100,
    bootId: BOOT,
    pidNamespace: NS,
    startTime: "5000",
    startTimeOf: (pid: number) => ({ 100: "5000", 200: "7000" })[pid],
  };
  const holder = (host: string, pid: number, boot = BOOT, ns = NS, start = "7000") =>
    `${host}/${pid}/abcd@${boot}/${ns}/${start}`;

  it("is gone when it ran in this boot and PID namespace and its pid runs no more", () => {
    expect(holderGoneOnThisHost(holder("pod-a", 300), self)).toBe(true);
  });

  it("is gone when its pid now runs another process (started at another time): a reused pid", () => {
    expect(holderGoneOnThisHost(holder("pod-a", 200, BOOT, NS, "6500"), self)).toBe(true);
    // this very pid, another start: a restart as the same pid
    expect(holderGoneOnThisHost(holder("pod-a", 100, BOOT, NS, "4000"), self)).toBe(true);
  });

  it("is not gone while its process runs", () => {
    expect(holderGoneOnThisHost(holder("pod-a", 200), self)).toBe(false);
  });

  // issue 37, item 6: two containers with one host name (host networking twice, a compose
  // hostname:, two hostNetwork pods): the other's pid means nothing in this PID namespace
  it("is not known gone in another PID namespace or another boot, whatever the host name", () => {
    expect(holderGoneOnThisHost(holder("pod-a", 300, BOOT, "4026532999"), self)).toBe(false);
    expect(holderGoneOnThisHost(holder("pod-a", 300, "other-boot"), self)).toBe(false);
    expect(holderGoneOnThisHost(holder("pod-b", 300), self)).toBe(false);
  });

  it("is not known gone without the identity (a bot from before, or off Linux)", () => {
    expect(holderGoneOnThisHost("pod-a/300/abcd", self)).toBe(false);
    expect(holderGoneOnThisHost("crashed", self)).toBe(false);
    expect(holderGoneOnThisHost(holder("pod-a", 300), { ...self, bootId: undefined })).toBe(false);
  });
});

describe("this process's identity (Linux)", () => {
  it.skipIf(process.platform !== "linux")(
    "names the boot, the PID namespace and the start time; this process is not gone, a dead pid is",
    () => {
      const self = thisProcess();
      expect(self.bootId).toMatch(/^[0-9a-f-]{36}$/);
      expect(self.pidNamespace).toMatch(/^\d+$/);
      expect(self.startTime).toMatch(/^\d+$/);
      const id = soleReplicaHolder(self);
      expect(id).toContain(`/${process.pid}/`);
      expect(holderGoneOnThisHost(id, self)).toBe(false);
      // a pid far past pid_max on any kernel: no such process
      const dead = id.replace(`/${process.pid}/`, "/99999999/");
      expect(holderGoneOnThisHost(dead, self)).toBe(true);
    },
  );
});

describe("claimSqliteFile takes the lease at once", () => {
  it("of two processes claiming together, one starts and the other is refused", async () => {
    const { path, first, second } = await twoProcesses();
    const clock = new ManualClock();
    const timers = new ManualTimers(clock);
    const claimOf = (lease: typeof first, holder: string) =>
      claimSqliteFile({
        lease,
        holder,
        path,
        clock,
        timers,
        ttlMs: TTL,
        holderGone: () => false,
      }).then(
        () => "started",
        (error: unknown) => (error as Error).name,
      );
    const outcomes = Promise.all([claimOf(first, "pod-a"), claimOf(second, "pod-b")]);
    await flush();
    // the winner renews, as its elector does, while the loser waits past the expiry
    const winner = (await first.current(clock.now()))!.holder;
    const lease = winner === "pod-a" ? first : second;
    for (let step = 0; step < 4; step += 1) {
      await timers.advance(5_000, async () => {});
      await lease.tryAcquire(winner, TTL, clock.now());
    }
    await timers.advance(5_000);
    expect((await outcomes).sort()).toEqual(["SqliteFileShared", "started"]);
  });
});
