import type { SqlDb, SqlExecutor, SqlValue } from "./sql.ts";

/**
 * Copies every table of one store into another, empty one at the same migrations (issue 38 item
 * 5): `migrate-store` (a SQLite file into PostgreSQL), `backup` and `restore`. Rows go as they
 * are, ids included (PostgreSQL's identity sequences are moved past them), so every reference
 * between tables still holds, and linked identities stay sealed under IDENTITY_KEY: nothing is
 * decrypted on the way. All of the target's writes are one transaction: a failed copy leaves the
 * target as empty as it was.
 */

/**
 * Not copied: each store's own record of its migrations (both are at head already), and the
 * leases, which belong to the replicas of the database they were taken in.
 */
export const NOT_COPIED: ReadonlySet<string> = new Set([
  "schema_migrations",
  "replica_lease",
  "leader_leases",
]);

/** Rows per INSERT; PostgreSQL takes at most 65,535 parameters in one statement. */
const MAX_PARAMETERS = 30_000;
const MAX_ROWS_PER_INSERT = 500;

export class StoreCopyError extends Error {
  override name = "StoreCopyError";
}

export interface CopiedTable {
  table: string;
  rows: number;
}

export async function tablesOf(db: SqlExecutor & Pick<SqlDb, "dialect">): Promise<string[]> {
  const rows =
    db.dialect === "sqlite"
      ? await db.all<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
      : await db.all<{ name: string }>(
          "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name",
        );
  return rows.map((row) => row.name);
}

/** The `name` column of a per-table catalogue query, in each dialect. */
async function namesFrom(
  db: SqlExecutor,
  dialect: SqlDb["dialect"],
  table: string,
  query: Record<SqlDb["dialect"], string>,
): Promise<string[]> {
  const rows = await db.all<{ name: string }>(query[dialect], [table]);
  return rows.map((row) => row.name);
}

function columnsOf(db: SqlExecutor, dialect: SqlDb["dialect"], table: string): Promise<string[]> {
  return namesFrom(db, dialect, table, {
    sqlite: "SELECT name FROM pragma_table_info(?) ORDER BY cid",
    postgres:
      "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position",
  });
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function countRows(db: SqlExecutor, table: string): Promise<number> {
  const row = await db.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${quote(table)}`);
  return Number(row?.n ?? 0);
}

export interface LiveLease {
  name: string;
  holder: string;
  expiresAt: number;
}

/**
 * The lease a replica holds on this store at `now` (replica_lease in a SQLite file,
 * leader_leases in PostgreSQL), if any: a bot runs on it, or stopped less than a lease ago.
 */
export async function liveLeaseIn(
  db: SqlExecutor & Pick<SqlDb, "dialect">,
  now: number,
): Promise<LiveLease | undefined> {
  const tables = new Set(await tablesOf(db));
  for (const table of ["replica_lease", "leader_leases"]) {
    if (!tables.has(table)) continue;
    const row = await db.get<{ name: string; holder: string; expires_at: number | string }>(
      `SELECT name, holder, expires_at FROM ${quote(table)} WHERE expires_at > ? ORDER BY expires_at DESC LIMIT 1`,
      [now],
    );
    if (row) return { name: row.name, holder: row.holder, expiresAt: Number(row.expires_at) };
  }
  return undefined;
}

/** The tables to copy, each with rows, in the target: empty when the store is new. */
export async function rowsIn(db: SqlDb): Promise<CopiedTable[]> {
  const counted: CopiedTable[] = [];
  for (const table of await tablesOf(db)) {
    if (NOT_COPIED.has(table)) continue;
    const rows = await countRows(db, table);
    if (rows > 0) counted.push({ table, rows });
  }
  return counted;
}

/**
 * Copies `from` into `to`, both opened (so both at this version's migrations); `from` may be one
 * transaction of a store, for a consistent snapshot of a running one. Refuses a target
 * that holds any row, and a source table or column the target lacks (nothing is dropped
 * silently). Returns each table with the rows copied, counted again in the target.
 */
export async function copyStore(
  from: SqlExecutor & Pick<SqlDb, "dialect">,
  to: SqlDb,
): Promise<CopiedTable[]> {
  const occupied = await rowsIn(to);
  if (occupied.length > 0) {
    throw new StoreCopyError(
      `the target store is not empty (${occupied.map((t) => `${t.table}: ${t.rows}`).join(", ")}); copy only into a new, empty store`,
    );
  }
  const targetTables = new Set(await tablesOf(to));
  const tables = (await tablesOf(from)).filter((table) => !NOT_COPIED.has(table));
  const missing = tables.filter((table) => !targetTables.has(table));
  if (missing.length > 0) {
    throw new StoreCopyError(
      `the target has no table ${missing.join(", ")}: are both at the same version of palette-chatops?`,
    );
  }
  const plan: Array<{ table: string; columns: string[] }> = [];
  for (const table of tables) {
    const columns = await columnsOf(from, from.dialect, table);
    const targetColumns = new Set(await columnsOf(to, to.dialect, table));
    const absent = columns.filter((column) => !targetColumns.has(column));
    if (absent.length > 0) {
      throw new StoreCopyError(
        `the target's ${table} has no column ${absent.join(", ")}: are both at the same version of palette-chatops?`,
      );
    }
    plan.push({ table, columns });
  }

  return to.transaction(async (tx) => {
    const copied: CopiedTable[] = [];
    for (const { table, columns } of plan) {
      const keys = await keyColumnsOf(from, from.dialect, table);
      let read = 0;
      for await (const rows of pagesOf(from, table, columns, keys)) {
        await insertRows(tx, table, columns, rows);
        read += rows.length;
      }
      const landed = await countRows(tx, table);
      if (landed !== read) {
        throw new StoreCopyError(`${table}: ${read} rows read, ${landed} in the target`);
      }
      copied.push({ table, rows: landed });
    }
    if (to.dialect === "postgres") await moveIdentitiesPastCopiedIds(tx);
    return copied;
  });
}

/** Rows read at a time: a table is never held whole (300,000 audit rows were 380 MB of RSS). */
export const PAGE_ROWS = 1000;

/** The primary key's columns, in key order; none for a table without one. */
function keyColumnsOf(
  db: SqlExecutor,
  dialect: SqlDb["dialect"],
  table: string,
): Promise<string[]> {
  return namesFrom(db, dialect, table, {
    sqlite: "SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk",
    postgres: `SELECT kcu.column_name AS name
                 FROM information_schema.table_constraints tc
                 JOIN information_schema.key_column_usage kcu
                   ON kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema
                WHERE tc.table_schema = current_schema() AND tc.table_name = ?
                  AND tc.constraint_type = 'PRIMARY KEY'
                ORDER BY kcu.ordinal_position`,
  });
}

/**
 * A table's rows, PAGE_ROWS at a time: after the last key read (keyset paging, each page one
 * index range), or by offset over every column for a table without a primary key. The caller
 * reads inside one transaction of the source, so the pages are one snapshot.
 */
async function* pagesOf(
  db: SqlExecutor,
  table: string,
  columns: string[],
  keys: string[],
): AsyncGenerator<Array<Record<string, SqlValue>>> {
  const select = `SELECT ${columns.map(quote).join(", ")} FROM ${quote(table)}`;
  if (keys.length === 0) {
    const order = columns.map((_, i) => String(i + 1)).join(", ");
    for (let offset = 0; ; offset += PAGE_ROWS) {
      const rows = await db.all<Record<string, SqlValue>>(
        `${select} ORDER BY ${order} LIMIT ${PAGE_ROWS} OFFSET ${offset}`,
      );
      if (rows.length > 0) yield rows;
      if (rows.length < PAGE_ROWS) return;
    }
  }
  const order = keys.map(quote).join(", ");
  const after =
    keys.length === 1
      ? `${quote(keys[0]!)} > ?`
      : `(${order}) > (${keys.map(() => "?").join(", ")})`;
  let last: SqlValue[] | undefined;
  for (;;) {
    const rows = await db.all<Record<string, SqlValue>>(
      last
        ? `${select} WHERE ${after} ORDER BY ${order} LIMIT ${PAGE_ROWS}`
        : `${select} ORDER BY ${order} LIMIT ${PAGE_ROWS}`,
      last,
    );
    if (rows.length > 0) yield rows;
    if (rows.length < PAGE_ROWS) return;
    const end = rows[rows.length - 1]!;
    last = keys.map((key) => end[key] ?? null);
  }
}

async function insertRows(
  tx: SqlExecutor,
  table: string,
  columns: string[],
  rows: Array<Record<string, SqlValue>>,
): Promise<void> {
  const perInsert = Math.max(
    1,
    Math.min(MAX_ROWS_PER_INSERT, Math.floor(MAX_PARAMETERS / columns.length)),
  );
  const tuple = `(${columns.map(() => "?").join(", ")})`;
  for (let start = 0; start < rows.length; start += perInsert) {
    const batch = rows.slice(start, start + perInsert);
    await tx.run(
      `INSERT INTO ${quote(table)} (${columns.map(quote).join(", ")}) VALUES ${batch.map(() => tuple).join(", ")}`,
      batch.flatMap((row) => columns.map((column) => row[column] ?? null)),
    );
  }
}

/**
 * Ids were inserted as they were; PostgreSQL's identity sequences did not see them, so each is
 * set past the largest id copied, or the next row would collide with a copied one.
 */
async function moveIdentitiesPastCopiedIds(tx: SqlExecutor): Promise<void> {
  const identities = await tx.all<{ table_name: string; column_name: string }>(
    "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND is_identity = 'YES'",
  );
  for (const { table_name: table, column_name: column } of identities) {
    await tx.get(
      `SELECT setval(pg_get_serial_sequence(?, ?), COALESCE((SELECT MAX(${quote(column)}) FROM ${quote(table)}), 0) + 1, false) AS next`,
      [quote(table), column],
    );
  }
}
