import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FencedOut, leaseFor } from "../../../../src/store/lease.ts";
import { openPostgres } from "../../../../src/store/postgres.ts";
import { migratePostgres } from "../../../../src/store/postgres-migrate.ts";
import type { SqlDb } from "../../../../src/store/sql.ts";
import { freshDatabase, POSTGRES_SETUP_TIMEOUT_MS } from "../../../support/postgres.ts";

const TTL = 15_000;
const T0 = Date.UTC(2026, 0, 1);

let url: string;
/** two replicas: each its own pool on the one database */
let replicaA: SqlDb;
let replicaB: SqlDb;
let leaseNumber = 0;

beforeAll(async () => {
  url = (await freshDatabase()).url;
  replicaA = await openPostgres(url, { max: 4 });
  replicaB = await openPostgres(url, { max: 4 });
  await migratePostgres(replicaA);
  await replicaA.run("CREATE TABLE singleton_writes (what TEXT NOT NULL)");
}, POSTGRES_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await replicaA?.close();
  await replicaB?.close();
});

/** a lease name of its own per test, so tests share the database but not the lease */
function leases() {
  leaseNumber += 1;
  const name = `singletons-${leaseNumber}`;
  return { a: leaseFor(replicaA, name), b: leaseFor(replicaB, name), name };
}

describe("the PostgreSQL leader lease", () => {
  it("goes to one of two holders asking at once; the other gets nothing", async () => {
    const { a, b } = leases();
    const [tokenA, tokenB] = await Promise.all([
      a.tryAcquire("replica-a", TTL, T0),
      b.tryAcquire("replica-b", TTL, T0),
    ]);
    expect([tokenA, tokenB].filter((token) => token !== undefined)).toEqual([1]);
    const holder = tokenA === 1 ? "replica-a" : "replica-b";
    expect(await a.current(T0)).toEqual({ holder, token: 1, expiresAt: T0 + TTL });
  });

  it("keeps its token when the holder renews, and refuses the other holder meanwhile", async () => {
    const { a, b } = leases();
    expect(await a.tryAcquire("replica-a", TTL, T0)).toBe(1);
    expect(await a.tryAcquire("replica-a", TTL, T0 + 5_000)).toBe(1);
    // past the first expiry, but the renewal moved it
    expect(await b.tryAcquire("replica-b", TTL, T0 + TTL + 1)).toBeUndefined();
    expect(await b.currentToken(T0 + TTL + 1)).toBe(1);
    expect(await a.current(T0 + TTL + 1)).toMatchObject({
      holder: "replica-a",
      expiresAt: T0 + 5_000 + TTL,
    });
  });

  it("hands over at expiry with a higher token", async () => {
    const { a, b } = leases();
    expect(await a.tryAcquire("replica-a", TTL, T0)).toBe(1);
    expect(await b.tryAcquire("replica-b", TTL, T0 + TTL - 1)).toBeUndefined();
    expect(await b.tryAcquire("replica-b", TTL, T0 + TTL)).toBe(2);
    // the old holder coming back finds it taken
    expect(await a.tryAcquire("replica-a", TTL, T0 + TTL + 1)).toBeUndefined();
    expect(await a.currentToken(T0 + TTL + 1)).toBe(2);
  });

  it("gives the holder that let its lease expire a new token when it takes it again", async () => {
    const { a } = leases();
    expect(await a.tryAcquire("replica-a", TTL, T0)).toBe(1);
    expect(await a.currentToken(T0 + TTL)).toBeUndefined();
    expect(await a.tryAcquire("replica-a", TTL, T0 + TTL)).toBe(2);
  });

  it("is free at once after release, for the next holder with a higher token", async () => {
    const { a, b } = leases();
    expect(await a.tryAcquire("replica-a", TTL, T0)).toBe(1);
    // a release with a stale token or by another holder changes nothing
    await a.release("replica-a", 7);
    await b.release("replica-b", 1);
    expect(await a.currentToken(T0 + 1)).toBe(1);
    await a.release("replica-a", 1);
    expect(await a.currentToken(T0 + 1)).toBeUndefined();
    expect(await b.tryAcquire("replica-b", TTL, T0 + 2)).toBe(2);
  });

  it("lets the holder's fenced write commit", async () => {
    const { a } = leases();
    const token = (await a.tryAcquire("replica-a", TTL, T0))!;
    await replicaA.transaction(async (tx) => {
      await a.assertFenced(tx, token, T0 + 1_000);
      await tx.run("INSERT INTO singleton_writes (what) VALUES (?)", ["leader-write"]);
    });
    expect(await writes("leader-write")).toBe(1);
  });

  it("refuses a deposed holder's write inside its transaction and rolls it back", async () => {
    const { a, b } = leases();
    const oldToken = (await a.tryAcquire("replica-a", TTL, T0))!;
    // replica-a is paused past its lease; replica-b takes over
    expect(await b.tryAcquire("replica-b", TTL, T0 + TTL + 1)).toBe(oldToken + 1);
    const error = await replicaA
      .transaction(async (tx) => {
        await tx.run("INSERT INTO singleton_writes (what) VALUES (?)", ["deposed-write"]);
        // late: replica-a wakes up and would commit its poll
        await a.assertFenced(tx, oldToken, T0 + TTL + 2);
        await tx.run("INSERT INTO singleton_writes (what) VALUES (?)", ["deposed-write"]);
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(FencedOut);
    expect(error).toMatchObject({ token: oldToken, current: oldToken + 1 });
    expect(await writes("deposed-write")).toBe(0);
  });

  it("refuses the write of a holder whose lease expired even when nobody took it yet", async () => {
    const { a } = leases();
    const token = (await a.tryAcquire("replica-a", TTL, T0))!;
    await expect(
      replicaA.transaction(async (tx) => {
        await a.assertFenced(tx, token, T0 + TTL);
        await tx.run("INSERT INTO singleton_writes (what) VALUES (?)", ["expired-write"]);
      }),
    ).rejects.toBeInstanceOf(FencedOut);
    expect(await writes("expired-write")).toBe(0);
  });

  it("makes a take-over wait until a fenced transaction in flight has ended", async () => {
    const { a, b, name } = leases();
    const token = (await a.tryAcquire("replica-a", TTL, T0))!;
    let finish!: () => void;
    const finishing = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let fenced!: () => void;
    const wasFenced = new Promise<void>((resolve) => {
      fenced = resolve;
    });
    // the leader checked its fence just before expiry and is still writing
    const leaderWrite = replicaA.transaction(async (tx) => {
      await a.assertFenced(tx, token, T0 + TTL - 1);
      fenced();
      await finishing;
      await tx.run("INSERT INTO singleton_writes (what) VALUES (?)", ["in-flight-write"]);
    });
    await wasFenced;
    let tookOver: number | undefined | "pending" = "pending";
    const takeOver = b.tryAcquire("replica-b", TTL, T0 + TTL).then((result) => {
      tookOver = result;
      return result;
    });
    // wait (on PostgreSQL's own word, not a timer) until the take-over blocks on the row lock
    await waitUntilBlockedOn(name);
    expect(tookOver).toBe("pending");
    finish();
    await leaderWrite;
    expect(await takeOver).toBe(token + 1);
    // the leader's write landed before the lease changed hands
    expect(await writes("in-flight-write")).toBe(1);
  });
});

describe("the SQLite lease (one replica)", () => {
  it("always grants token 1, renews it, and fences nothing out", async () => {
    const db = sqliteAsSqlDb();
    const lease = leaseFor(db, "singletons");
    expect(await lease.tryAcquire("only", TTL, T0)).toBe(1);
    expect(await lease.tryAcquire("only", TTL, T0 + 10 * TTL)).toBe(1);
    expect(await lease.currentToken(T0 + 100 * TTL)).toBe(1);
    await lease.release("only", 1);
    await expect(lease.assertFenced(db, 1, T0 + 1_000 * TTL)).resolves.toBeUndefined();
    await expect(lease.assertFenced(db, 2, T0)).rejects.toBeInstanceOf(FencedOut);
  });
});

async function writes(what: string): Promise<number> {
  const row = await replicaA.get<{ n: number }>(
    "SELECT COUNT(*) AS n FROM singleton_writes WHERE what = ?",
    [what],
  );
  return row?.n ?? 0;
}

/** polls pg_stat_activity until some session waits on a lock while touching the lease */
async function waitUntilBlockedOn(leaseName: string): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt += 1) {
    const waiting = await replicaA.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM pg_stat_activity
       WHERE wait_event_type = 'Lock' AND query LIKE '%leader_leases%'`,
    );
    if ((waiting?.n ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`nobody blocked on the lease ${leaseName}`);
}

/** the SQLite lease only reads the dialect: any statement would be a mistake */
function sqliteAsSqlDb(): SqlDb {
  const refuse = async (): Promise<never> => {
    throw new Error("the SQLite lease runs no statement");
  };
  return {
    dialect: "sqlite",
    all: refuse,
    get: refuse,
    run: refuse,
    transaction: async (work) => work({ all: refuse, get: refuse, run: refuse }),
    close: async () => undefined,
  };
}
