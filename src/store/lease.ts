import type { SqlDb, SqlExecutor } from "./sql.ts";

/**
 * The leader lease (issue 12): one replica at a time runs the singletons. On PostgreSQL it is a
 * row of leader_leases (migration 90): who holds it, until when (epoch ms of the holders' own
 * clocks, which must agree to well within a TTL), and a fencing token that grows each time the
 * lease changes hands or is taken again after expiring; renewing a live lease keeps it. Every
 * write a singleton makes runs in a transaction that calls `assertFenced` first, so a leader
 * paused past its lease (GC, SIGSTOP, a stalled node) and waking up late cannot commit.
 *
 * On SQLite there is one replica. In memory it is always the leader, token 1; in a file the
 * lease is a row of replica_lease in that file (sqliteFileLease), so a second process that
 * opens the same file, on this host or another through a shared volume, finds the first one's
 * lease and stops (src/app/sole-replica.ts) instead of leading beside it.
 */
export interface LeaderLease {
  readonly name: string;
  /**
   * Takes the lease when it is free or expired (a new token) or renews it when `holder` holds it
   * (the same token), until `now + ttlMs`. Returns the token, or undefined when another holds it.
   */
  tryAcquire(holder: string, ttlMs: number, now: number): Promise<number | undefined>;
  /** Ends the lease at once, if `holder` still holds it with `token`, so another can take over. */
  release(holder: string, token: number): Promise<void>;
  /** the live lease, undefined when it is free or expired */
  current(now: number): Promise<LeaseState | undefined>;
  currentToken(now: number): Promise<number | undefined>;
  /**
   * Inside `tx`: throws FencedOut unless the lease is live with `token`. On PostgreSQL it locks
   * the lease row until `tx` ends, so a take-over waits for the write it fences.
   */
  assertFenced(tx: SqlExecutor, token: number, now: number): Promise<void>;
}

export interface LeaseState {
  holder: string;
  token: number;
  expiresAt: number;
}

/** A singleton's write refused: its lease changed hands or expired. */
export class FencedOut extends Error {
  override readonly name = "FencedOut";

  constructor(
    readonly lease: string,
    /** the token the writer holds */
    readonly token: number,
    /** the live lease's token, undefined when none is live */
    readonly current: number | undefined,
  ) {
    super(
      current === undefined
        ? `the lease ${lease} (token ${token}) has expired: the write is refused`
        : `the lease ${lease} moved on to token ${current} (this writer holds ${token}): the write is refused`,
    );
  }
}

/**
 * The one lease the singletons share: the poll, the sender, the launch tracker, the digests
 * (src/app/bot.ts takes it; `palette-chatops doctor` reads who holds it).
 */
export const SINGLETONS_LEASE = "singletons";

export function leaseFor(db: SqlDb, name: string): LeaderLease {
  return db.dialect === "postgres" ? postgresLease(db, name) : singleReplicaLease(name);
}

interface LeaseRow {
  holder: string;
  token: number;
  expires_at: number;
}

function postgresLease(db: SqlDb, name: string): LeaderLease {
  // FOR SHARE, not FOR UPDATE: it blocks a take-over's UPDATE just the same, while the leader's
  // own fenced transactions (poll, sender) do not wait for one another
  return tableLease(db, name, { table: "leader_leases", fenceLock: " FOR SHARE" });
}

/**
 * A lease kept as one row of `table` (PostgreSQL's leader_leases, SQLite's replica_lease). The
 * row stays once written: its token is where the next holder's starts.
 */
function tableLease(
  db: SqlDb,
  name: string,
  { table, fenceLock }: { table: "leader_leases" | "replica_lease"; fenceLock: string },
): LeaderLease {
  const current = async (now: number): Promise<LeaseState | undefined> => {
    const row = await db.get<LeaseRow>(
      `SELECT holder, token, expires_at FROM ${table} WHERE name = ? AND expires_at > ?`,
      [name, now],
    );
    return row && { holder: row.holder, token: row.token, expiresAt: row.expires_at };
  };
  return {
    name,
    async tryAcquire(holder, ttlMs, now) {
      // One statement, so two replicas asking at once cannot both win: the insert of a first
      // lease or the conditional update of the row are atomic, and the loser's WHERE is false.
      const row = await db.get<{ token: number }>(
        `INSERT INTO ${table} (name, holder, token, expires_at) VALUES (?, ?, 1, ?)
         ON CONFLICT (name) DO UPDATE SET
           token = CASE
             WHEN ${table}.holder = excluded.holder AND ${table}.expires_at > ?
             THEN ${table}.token
             ELSE ${table}.token + 1
           END,
           holder = excluded.holder,
           expires_at = excluded.expires_at
         WHERE ${table}.holder = excluded.holder OR ${table}.expires_at <= ?
         RETURNING token`,
        [name, holder, now + ttlMs, now, now],
      );
      return row?.token;
    },
    async release(holder, token) {
      await db.run(
        `UPDATE ${table} SET expires_at = 0 WHERE name = ? AND holder = ? AND token = ?`,
        [name, holder, token],
      );
    },
    current,
    async currentToken(now) {
      return (await current(now))?.token;
    },
    async assertFenced(tx, token, now) {
      const row = await tx.get<LeaseRow>(
        `SELECT holder, token, expires_at FROM ${table} WHERE name = ?${fenceLock}`,
        [name],
      );
      const live = row !== undefined && row.expires_at > now ? row.token : undefined;
      if (live !== token) throw new FencedOut(name, token, live);
    },
  };
}

/**
 * The lease as a row in the SQLite file itself. Not a migration: the table is the process's
 * claim on the file, not the bot's state, and a file from before it gets it on first start.
 * SQLite takes one writer at a time, so the upsert below is as atomic as PostgreSQL's.
 */
export async function sqliteFileLease(db: SqlDb, name: string): Promise<LeaderLease> {
  await db.run(
    `CREATE TABLE IF NOT EXISTS replica_lease (
       name TEXT PRIMARY KEY,
       holder TEXT NOT NULL,
       token INTEGER NOT NULL CHECK (token > 0),
       expires_at INTEGER NOT NULL
     )`,
  );
  // SQLite takes one writer at a time: its fenced read needs no lock clause
  return tableLease(db, name, { table: "replica_lease", fenceLock: "" });
}

/** One replica: nobody else can hold the lease, so it is always granted and never moves. */
function singleReplicaLease(name: string): LeaderLease {
  const TOKEN = 1;
  return {
    name,
    async tryAcquire() {
      return TOKEN;
    },
    async release() {},
    async current() {
      return { holder: "this replica", token: TOKEN, expiresAt: Number.POSITIVE_INFINITY };
    },
    async currentToken() {
      return TOKEN;
    },
    async assertFenced(_tx, token) {
      if (token !== TOKEN) throw new FencedOut(name, token, TOKEN);
    },
  };
}
