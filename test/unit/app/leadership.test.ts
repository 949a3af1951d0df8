import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLeadership, type Leadership } from "../../../src/app/leadership.ts";
import { ManualClock } from "../../../src/clock.ts";
import { silentLogger } from "../../../src/log.ts";
import { FencedOut, leaseFor } from "../../../src/store/lease.ts";
import { openPostgres } from "../../../src/store/postgres.ts";
import { migratePostgres } from "../../../src/store/postgres-migrate.ts";
import type { SqlDb } from "../../../src/store/sql.ts";
import { openSqlite } from "../../../src/store/sqlite.ts";
import { advanceTogether, ManualTimers } from "../../support/manual-timers.ts";
import { freshDatabase, POSTGRES_SETUP_TIMEOUT_MS } from "../../support/postgres.ts";

const TTL = 15_000;
const RENEW = 5_000;

let dbA: SqlDb;
let dbB: SqlDb;
let leaseNumber = 0;

beforeAll(async () => {
  const { url } = await freshDatabase();
  dbA = await openPostgres(url, { max: 4 });
  dbB = await openPostgres(url, { max: 4 });
  await migratePostgres(dbA);
  await dbA.run("CREATE TABLE singleton_writes (who TEXT NOT NULL)");
}, POSTGRES_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await dbA?.close();
  await dbB?.close();
});

interface Replica {
  leadership: Leadership;
  timers: ManualTimers;
  db: SqlDb;
}

function replica(name: string, db: SqlDb, lease: string, clock: ManualClock, log: string[]) {
  const timers = new ManualTimers(clock);
  const leadership = createLeadership({
    lease: leaseFor(db, lease),
    ttlMs: TTL,
    renewEveryMs: RENEW,
    clock,
    timers,
    logger: silentLogger,
    holder: name,
    singletons: {
      start: async () => {
        log.push(`${name} singletons start`);
      },
      stop: async () => {
        log.push(`${name} singletons stop`);
      },
    },
  });
  return { leadership, timers, db } satisfies Replica;
}

/** a singleton's write, fenced as the bot's are */
const write = (r: Replica, who: string) =>
  r.db.transaction(async (tx) => {
    await r.leadership.fence(tx);
    await tx.run("INSERT INTO singleton_writes (who) VALUES (?)", [who]);
  });

const written = async (who: string) =>
  (await dbA.all<{ who: string }>("SELECT who FROM singleton_writes WHERE who = ?", [who])).length;

async function run(replicas: Replica[], ms: number): Promise<void> {
  await advanceTogether(
    replicas.map((each) => each.timers),
    ms,
    async () => {
      await Promise.all(replicas.map((each) => each.leadership.settled()));
    },
  );
}

describe("leadership on PostgreSQL: two replicas, one set of singletons", () => {
  it("starts the singletons on one replica only; a paused leader's writes are refused and its singletons stop when it wakes; the follower is ready", async () => {
    leaseNumber += 1;
    const lease = `bot-${leaseNumber}`;
    const clock = new ManualClock();
    const log: string[] = [];
    const a = replica("a", dbA, lease, clock, log);
    const b = replica("b", dbB, lease, clock, log);
    await a.leadership.start();
    await b.leadership.start();
    expect(log).toEqual(["a singletons start"]);
    expect(a.leadership.readiness()).toEqual({ leading: true, followedBefore: false });
    expect(b.leadership.readiness()).toEqual({ leading: false, followedBefore: true });
    expect(a.leadership.stats()).toEqual({
      leading: true,
      leaseAgeSeconds: 0,
      expiresInSeconds: TTL / 1000,
    });
    expect(b.leadership.stats()).toEqual({
      leading: false,
      leaseAgeSeconds: 0,
      expiresInSeconds: 0,
    });
    expect(await b.leadership.report()).toEqual({
      role: "follower",
      replica: "b",
      leader: "a",
      token: 1,
      leaseExpiresInSeconds: TTL / 1000,
    });
    await write(a, "a-term-1");
    await expect(write(b, "b-follower")).rejects.toBeInstanceOf(FencedOut);
    expect(await written("b-follower")).toBe(0);

    // a is paused past its lease; b takes over with token 2 and starts the singletons
    a.timers.paused = true;
    await run([a, b], TTL + RENEW);
    expect(log).toEqual(["a singletons start", "b singletons start"]);
    expect(await b.leadership.report()).toMatchObject({ role: "leader", leader: "b", token: 2 });
    // a, awake but before its timers ran, still thinks it leads: its write is refused
    await expect(write(a, "a-late")).rejects.toBeInstanceOf(FencedOut);
    expect(await written("a-late")).toBe(0);
    a.timers.paused = false;
    await run([a, b], 0);
    expect(log).toEqual(["a singletons start", "b singletons start", "a singletons stop"]);
    await write(b, "b-term-2");
    expect(await written("b-term-2")).toBe(1);

    // b shuts down: it stops its singletons and releases the lease; a takes over at its next try
    await b.leadership.stop();
    await run([a], RENEW);
    expect(log).toEqual([
      "a singletons start",
      "b singletons start",
      "a singletons stop",
      "b singletons stop",
      "a singletons start",
    ]);
    expect(await a.leadership.report()).toMatchObject({ role: "leader", token: 3 });
    await a.leadership.stop();
  });
});

describe("leadership on SQLite (one replica)", () => {
  it("leads from the start, and stops its singletons on stop", async () => {
    const db = await openSqlite(":memory:");
    const log: string[] = [];
    const clock = new ManualClock();
    const only = replica("only", db, "singletons", clock, log);
    await only.leadership.start();
    expect(log).toEqual(["only singletons start"]);
    await run([only], 10 * TTL);
    expect(log).toEqual(["only singletons start"]);
    await db.transaction((tx) => only.leadership.fence(tx));
    await only.leadership.stop();
    expect(log).toEqual(["only singletons start", "only singletons stop"]);
    await expect(db.transaction((tx) => only.leadership.fence(tx))).rejects.toBeInstanceOf(
      FencedOut,
    );
    await db.close();
  });
});
