import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createLeaderElector,
  type DeposedReason,
  type LeaderElector,
} from "../../../src/app/leader.ts";
import { ManualClock } from "../../../src/clock.ts";
import { FencedOut, type LeaderLease, leaseFor } from "../../../src/store/lease.ts";
import { openPostgres } from "../../../src/store/postgres.ts";
import { migratePostgres } from "../../../src/store/postgres-migrate.ts";
import type { SqlDb } from "../../../src/store/sql.ts";
import { advanceTogether, ManualTimers } from "../../support/manual-timers.ts";
import { freshDatabase, POSTGRES_SETUP_TIMEOUT_MS } from "../../support/postgres.ts";

const TTL = 15_000;
const RENEW = 5_000;

let url: string;
let db: SqlDb;
let leaseNumber = 0;
const opened: SqlDb[] = [];

beforeAll(async () => {
  url = (await freshDatabase()).url;
  db = await openPostgres(url, { max: 6 });
  opened.push(db);
  await migratePostgres(db);
  await db.run("CREATE TABLE singleton_writes (what TEXT NOT NULL)");
}, POSTGRES_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await Promise.all(opened.map((each) => each.close()));
});

function freshLease(on: SqlDb = db): LeaderLease {
  leaseNumber += 1;
  return leaseFor(on, `singletons-${leaseNumber}`);
}

interface Replica {
  elector: LeaderElector;
  timers: ManualTimers;
  events: string[];
  errors: unknown[];
}

function replica(
  name: string,
  lease: LeaderLease,
  clock: ManualClock,
  log: string[],
  timers = new ManualTimers(clock),
): Replica {
  const events: string[] = [];
  const errors: unknown[] = [];
  const record = (event: string): void => {
    events.push(event);
    log.push(`${name} ${event}`);
  };
  const elector = createLeaderElector({
    lease,
    holder: name,
    ttlMs: TTL,
    renewEveryMs: RENEW,
    clock,
    timers,
    onElected: (token) => record(`elected ${token}`),
    onDeposed: (reason: DeposedReason) => record(`deposed ${reason}`),
    onError: (error) => errors.push(error),
  });
  return { elector, timers, events, errors };
}

/** moves the shared clock through every running replica's timers, each renewal finishing first */
async function run(replicas: Replica[], ms: number): Promise<void> {
  await advanceTogether(
    replicas.map((each) => each.timers),
    ms,
    async () => {
      await Promise.all(replicas.map((each) => each.elector.settled()));
    },
  );
}

/** onElected and onDeposed alternate, starting with onElected */
function expectAlternating(events: string[]): void {
  events.forEach((event, index) => {
    expect(event.startsWith(index % 2 === 0 ? "elected" : "deposed")).toBe(true);
  });
}

describe("the leader elector on PostgreSQL", () => {
  it("is elected, then keeps its token and pushes the lease's expiry on with each renewal", async () => {
    const clock = new ManualClock();
    const lease = freshLease();
    const a = replica("a", lease, clock, []);
    await a.elector.start();
    expect(a.events).toEqual(["elected 1"]);
    for (let step = 0; step < 5; step += 1) {
      await run([a], RENEW);
      expect(await lease.current(clock.now())).toEqual({
        holder: "a",
        token: 1,
        expiresAt: clock.now() + TTL,
      });
    }
    expect(a.events).toEqual(["elected 1"]);
    expect(a.elector.token()).toBe(1);
    await a.elector.stop();
  });

  it("hands over to the follower, with a higher token, when the leader is paused past its lease; the paused leader's write is refused and it is deposed as soon as it runs", async () => {
    const clock = new ManualClock();
    const lease = freshLease();
    const log: string[] = [];
    const a = replica("a", lease, clock, log);
    const b = replica("b", lease, clock, log);
    await a.elector.start();
    await b.elector.start();
    // b follows while a renews
    await run([a, b], 4 * RENEW);
    expect(log).toEqual(["a elected 1"]);

    // a stops running (SIGSTOP): its timers do not fire, the shared clock goes on
    a.timers.paused = true;
    const pausedAt = clock.now();
    await run([a, b], TTL + RENEW);
    expect(log).toEqual(["a elected 1", "b elected 2"]);
    expect(clock.now()).toBeGreaterThanOrEqual(pausedAt + TTL);

    // a still believes it leads with token 1; its late write is refused and rolled back
    expect(a.elector.token()).toBe(1);
    await expect(
      db.transaction(async (tx) => {
        await tx.run("INSERT INTO singleton_writes (what) VALUES (?)", ["paused leader"]);
        await lease.assertFenced(tx, a.elector.token()!, clock.now());
      }),
    ).rejects.toBeInstanceOf(FencedOut);
    expect(
      await db.get("SELECT what FROM singleton_writes WHERE what = ?", ["paused leader"]),
    ).toBeUndefined();

    // a runs again (SIGCONT): its overdue renewal finds its lease expired and taken
    a.timers.paused = false;
    await run([a, b], 0);
    expect(log).toEqual(["a elected 1", "b elected 2", "a deposed expired"]);
    expect(a.elector.token()).toBeUndefined();
    await run([a, b], 3 * RENEW);
    expect(log).toEqual(["a elected 1", "b elected 2", "a deposed expired"]);
    expectAlternating(a.events);
    expectAlternating(b.events);
    await a.elector.stop();
    await b.elector.stop();
  });

  it("deposes at once when a renewal fails (PostgreSQL out of reach)", async () => {
    const clock = new ManualClock();
    const own = await openPostgres(url, { max: 1 });
    const a = replica("a", freshLease(own), clock, []);
    await a.elector.start();
    expect(a.events).toEqual(["elected 1"]);
    await own.close();
    await run([a], RENEW);
    expect(a.events).toEqual(["elected 1", "deposed renewal-failed"]);
    expect(a.errors).toHaveLength(1);
    // and it keeps trying, failing quietly, without a second onDeposed
    await run([a], 2 * RENEW);
    expect(a.events).toEqual(["elected 1", "deposed renewal-failed"]);
    await a.elector.stop();
  });

  it("deposes at its lease's expiry while a renewal still waits on the network", async () => {
    const clock = new ManualClock();
    const real = freshLease();
    let answer!: (token: number | undefined) => void;
    let calls = 0;
    const hanging: LeaderLease = {
      ...real,
      tryAcquire: (holder, ttlMs, now) => {
        calls += 1;
        if (calls === 1) return real.tryAcquire(holder, ttlMs, now);
        return new Promise((resolve) => {
          answer = resolve;
        });
      },
    };
    const a = replica("a", hanging, clock, []);
    await a.elector.start();
    await a.timers.advance(RENEW);
    // the renewal hangs; nothing changes before the expiry…
    await a.timers.advance(TTL - RENEW - 1, afterCallbacks);
    await afterCallbacks();
    expect(a.events).toEqual(["elected 1"]);
    // …and at the expiry it is deposed without waiting for the answer
    await a.timers.advance(1, afterCallbacks);
    await afterCallbacks();
    expect(a.events).toEqual(["elected 1", "deposed expired"]);
    answer(undefined);
    await a.elector.settled();
    expect(a.events).toEqual(["elected 1", "deposed expired"]);
    await a.elector.stop();
  });

  it("runs onDeposed only after an onElected still in progress has finished", async () => {
    const clock = new ManualClock();
    const own = await openPostgres(url, { max: 1 });
    const timers = new ManualTimers(clock);
    const events: string[] = [];
    const errors: unknown[] = [];
    let finishStarting!: () => void;
    const elector = createLeaderElector({
      lease: freshLease(own),
      holder: "a",
      ttlMs: TTL,
      renewEveryMs: RENEW,
      clock,
      timers,
      onElected: async (token) => {
        events.push(`starting singletons ${token}`);
        await new Promise<void>((resolve) => {
          finishStarting = resolve;
        });
        events.push("singletons started");
      },
      onDeposed: (reason) => {
        events.push(`deposed ${reason}`);
      },
      onError: (error) => errors.push(error),
    });
    const starting = elector.start();
    await waitFor(() => events.length === 1);
    await own.close();
    await timers.advance(RENEW);
    // the renewal has failed (and the deposition is decided) once the error is reported
    await waitFor(() => errors.length === 1);
    await afterCallbacks();
    expect(events).toEqual(["starting singletons 1"]);
    finishStarting();
    await starting;
    await elector.settled();
    expect(events).toEqual([
      "starting singletons 1",
      "singletons started",
      "deposed renewal-failed",
    ]);
    await elector.stop();
  });

  it("on stop, deposes and releases the lease so a follower takes over at once", async () => {
    const clock = new ManualClock();
    const lease = freshLease();
    const log: string[] = [];
    const a = replica("a", lease, clock, log);
    const b = replica("b", lease, clock, log);
    await a.elector.start();
    await b.elector.start();
    await a.elector.stop();
    expect(log).toEqual(["a elected 1", "a deposed stopped"]);
    expect(await lease.currentToken(clock.now())).toBeUndefined();
    // the next renewal of b, well before the old lease would have expired
    await run([b], RENEW);
    expect(log).toEqual(["a elected 1", "a deposed stopped", "b elected 2"]);
    await b.elector.stop();
  });

  it("refuses a renewal interval that is not below the TTL", () => {
    expect(() =>
      createLeaderElector({
        lease: freshLease(),
        holder: "a",
        ttlMs: 5_000,
        renewEveryMs: 5_000,
        clock: new ManualClock(),
        timers: new ManualTimers(new ManualClock()),
        onElected: () => {},
        onDeposed: () => {},
      }),
    ).toThrow(/below ttlMs/);
  });
});

describe("the leader elector on SQLite (one replica)", () => {
  it("is elected with token 1 and stays leader", async () => {
    const clock = new ManualClock();
    const refuse = async (): Promise<never> => {
      throw new Error("the SQLite lease runs no statement");
    };
    const sqlite: SqlDb = {
      dialect: "sqlite",
      all: refuse,
      get: refuse,
      run: refuse,
      transaction: async (work) => work({ all: refuse, get: refuse, run: refuse }),
      close: async () => undefined,
    };
    const a = replica("only", leaseFor(sqlite, "singletons"), clock, []);
    await a.elector.start();
    await run([a], 10 * TTL);
    expect(a.events).toEqual(["elected 1"]);
    await a.elector.stop();
    expect(a.events).toEqual(["elected 1", "deposed stopped"]);
  });

  it("tells when it last secured its lease and until when (for /metrics), nothing once stopped", async () => {
    const clock = new ManualClock();
    const sqlite = leaseFor({ dialect: "sqlite" } as SqlDb, "singletons");
    const a = replica("only", sqlite, clock, []);
    expect(a.elector.lease()).toBeUndefined();
    const startedAt = clock.now();
    await a.elector.start();
    expect(a.elector.lease()).toEqual({
      token: 1,
      securedAt: startedAt,
      expiresAt: startedAt + TTL,
    });
    await run([a], RENEW + 1);
    expect(a.elector.lease()).toEqual({
      token: 1,
      securedAt: startedAt + RENEW,
      expiresAt: startedAt + RENEW + TTL,
    });
    await a.elector.stop();
    expect(a.elector.lease()).toBeUndefined();
  });
});

/** the elector's callbacks chain on promises only: one macrotask turn runs them all */
function afterCallbacks(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

async function waitFor(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 500 && !condition(); attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(condition()).toBe(true);
}
