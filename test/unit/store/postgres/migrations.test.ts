import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../../../src/store/migrations/index.ts";
import {
  POSTGRES_MIGRATIONS,
  POSTGRES_ONLY_TABLES,
} from "../../../../src/store/migrations/postgres.ts";
import { openPostgres } from "../../../../src/store/postgres.ts";
import { migratePostgres } from "../../../../src/store/postgres-migrate.ts";
import type { SqlDb } from "../../../../src/store/sql.ts";
import { migrate } from "../../../../src/store/sqlite.ts";
import { freshDatabase, POSTGRES_SETUP_TIMEOUT_MS } from "../../../support/postgres.ts";

const opened: SqlDb[] = [];
async function open(url: string): Promise<SqlDb> {
  const db = await openPostgres(url, { max: 3 });
  opened.push(db);
  return db;
}

afterAll(async () => {
  await Promise.all(opened.map((db) => db.close()));
});

const latestIds = POSTGRES_MIGRATIONS.map((migration) => migration.id).sort((a, b) => a - b);

describe("the PostgreSQL migrations", () => {
  /** named one by one: ids 91–94 are migrations both stores have (issue 31) */
  const POSTGRES_ONLY = new Set([90]);

  it("have one PostgreSQL form, same id and name, for every SQLite migration", () => {
    const sqlite = MIGRATIONS.map(({ id, name }) => ({ id, name })).sort((a, b) => a.id - b.id);
    const postgres = POSTGRES_MIGRATIONS.map(({ id, name }) => ({ id, name }))
      // the PostgreSQL-only tables (90: the leader lease); the other ids of 90–99 are shared
      .filter(({ id }) => !POSTGRES_ONLY.has(id))
      .sort((a, b) => a.id - b.id);
    expect(postgres).toEqual(sqlite);
    expect(new Set(latestIds).size).toBe(latestIds.length);
  });

  it(
    "bring a fresh database to the latest id, and a second run applies nothing",
    async () => {
      const db = await open((await freshDatabase()).url);
      expect(await migratePostgres(db)).toEqual(latestIds);
      expect(await appliedIds(db)).toEqual(latestIds);
      expect(await migratePostgres(db)).toEqual([]);
      expect(await appliedIds(db)).toEqual(latestIds);
    },
    POSTGRES_SETUP_TIMEOUT_MS,
  );

  it(
    "apply what is missing only, in id order",
    async () => {
      const db = await open((await freshDatabase()).url);
      const firstTwo = POSTGRES_MIGRATIONS.slice(0, 2);
      expect(await migratePostgres(db, firstTwo)).toEqual([1, 10]);
      expect(await migratePostgres(db)).toEqual(latestIds.filter((id) => id > 10));
      expect(await appliedIds(db)).toEqual(latestIds);
    },
    POSTGRES_SETUP_TIMEOUT_MS,
  );

  it(
    "run once when three replicas start together against an empty database",
    async () => {
      const { url } = await freshDatabase();
      // each replica has its own pool, as separate processes would
      const replicas = await Promise.all([open(url), open(url), open(url)]);
      const results = await Promise.all(replicas.map((db) => migratePostgres(db)));
      // one replica applied everything, the others found nothing left to do
      expect(results.map((applied) => applied.length).sort((a, b) => a - b)).toEqual([
        0,
        0,
        latestIds.length,
      ]);
      const rows = await replicas[0]!.all<{ id: number; n: number }>(
        "SELECT id, COUNT(*) AS n FROM schema_migrations GROUP BY id ORDER BY id",
      );
      expect(rows).toEqual(latestIds.map((id) => ({ id, n: 1 })));
    },
    POSTGRES_SETUP_TIMEOUT_MS,
  );

  it(
    "leave nothing applied when one step fails",
    async () => {
      const db = await open((await freshDatabase()).url);
      const broken = [
        ...POSTGRES_MIGRATIONS.slice(0, 2),
        { id: 11, name: "broken", up: "CREATE TABLE oops (x NO_SUCH_TYPE);" },
      ];
      await expect(migratePostgres(db, broken)).rejects.toMatchObject({ code: "42704" });
      expect(await db.get("SELECT to_regclass('schema_migrations') AS t")).toEqual({ t: null });
      expect(await db.get("SELECT to_regclass('audit') AS t")).toEqual({ t: null });
    },
    POSTGRES_SETUP_TIMEOUT_MS,
  );
});

describe("the PostgreSQL schema", () => {
  let sqlite: Schema;
  let postgres: Schema;

  beforeAll(async () => {
    sqlite = sqliteSchema();
    const db = await open((await freshDatabase()).url);
    await migratePostgres(db);
    postgres = await postgresSchema(db);
  }, POSTGRES_SETUP_TIMEOUT_MS);

  it("has the same tables as the SQLite one, besides the PostgreSQL-only ones", () => {
    expect(Object.keys(postgres).filter((table) => !isPostgresOnly(table))).toEqual(
      Object.keys(sqlite),
    );
    for (const table of POSTGRES_ONLY_TABLES) expect(postgres[table]).toBeDefined();
  });

  it("has the same columns per table, in order, with the same NOT NULL, default and kind", () => {
    for (const table of Object.keys(sqlite)) {
      expect({ table, columns: postgres[table]?.columns }).toEqual({
        table,
        columns: sqlite[table]!.columns,
      });
    }
  });

  it("has the same primary keys, unique keys, indexes and CHECKs per table", () => {
    for (const table of Object.keys(sqlite)) {
      const {
        columns: _pg,
        identity: _identity,
        bigint: _bigint,
        ...postgresKeys
      } = postgres[table]!;
      const { columns: _sqlite, ...sqliteKeys } = sqlite[table]!;
      expect({ table, ...postgresKeys }).toEqual({ table, ...sqliteKeys });
    }
  });

  it("turns every AUTOINCREMENT id into a BIGINT identity, and epoch ms columns into BIGINT", () => {
    expect(postgres.notify_outbox!.identity).toEqual(["id"]);
    expect(postgres.launches!.bigint).toEqual(expect.arrayContaining(["created_at", "updated_at"]));
    expect(postgres.notify_holds!.bigint).toEqual(["started_at", "until_ms"]);
  });
});

function isPostgresOnly(table: string): boolean {
  return (POSTGRES_ONLY_TABLES as readonly string[]).includes(table);
}

async function appliedIds(db: SqlDb): Promise<number[]> {
  const rows = await db.all<{ id: number }>("SELECT id FROM schema_migrations ORDER BY id");
  return rows.map((row) => row.id);
}

/** What both backends must agree on, per table; `identity` and `bigint` are PostgreSQL detail. */
interface TableShape {
  /** "name kind [not null] [default x]" in column order; kind is integer or text */
  columns: string[];
  primaryKey: string[];
  /** "[unique ](a, b)[ partial]", sorted; primary keys excluded */
  indexes: string[];
  /** "column: allowed values", sorted */
  checks: string[];
  identity?: string[];
  bigint?: string[];
}
type Schema = Record<string, TableShape>;

function sqliteSchema(): Schema {
  const db = new Database(":memory:");
  migrate(db, MIGRATIONS);
  try {
    const tables = db
      .prepare(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all() as Array<{ name: string; sql: string }>;
    const schema: Schema = {};
    for (const { name, sql } of tables) {
      const info = db.prepare(`PRAGMA table_info(${name})`).all() as Array<{
        name: string;
        type: string;
        notnull: number;
        dflt_value: string | null;
        pk: number;
      }>;
      const indexList = db.prepare(`PRAGMA index_list(${name})`).all() as Array<{
        name: string;
        unique: number;
        origin: string;
        partial: number;
      }>;
      const indexes = indexList
        .filter((index) => index.origin !== "pk")
        .map((index) => {
          const columns = (
            db.prepare(`PRAGMA index_info(${index.name})`).all() as Array<{ name: string }>
          ).map((column) => column.name);
          return indexShape(columns, index.unique === 1, index.partial === 1);
        })
        .sort();
      // every CHECK is written on its column's line: "kind TEXT NOT NULL CHECK (kind IN (…))"
      const checks = sql
        .split("\n")
        .map((line) => /^\s*(\w+)\s.*CHECK\s*\((.*)\)/.exec(line))
        .filter((match) => match !== null)
        .map((match) => checkShape(match[1]!, match[2]!))
        .sort();
      schema[name] = {
        columns: info.map((column) =>
          columnShape(
            column.name,
            column.type.toLowerCase() === "integer" ? "integer" : column.type.toLowerCase(),
            column.notnull === 1 || column.pk > 0,
            column.dflt_value,
          ),
        ),
        primaryKey: info
          .filter((column) => column.pk > 0)
          .sort((a, b) => a.pk - b.pk)
          .map((column) => column.name),
        indexes,
        checks,
      };
    }
    return schema;
  } finally {
    db.close();
  }
}

async function postgresSchema(db: SqlDb): Promise<Schema> {
  const columns = await db.all<{
    table_name: string;
    column_name: string;
    data_type: string;
    is_nullable: string;
    column_default: string | null;
    is_identity: string;
  }>(
    `SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity
     FROM information_schema.columns WHERE table_schema = 'public'
     ORDER BY table_name, ordinal_position`,
  );
  const indexes = await db.all<{
    table_name: string;
    columns: string;
    unique: boolean;
    primary: boolean;
    partial: boolean;
  }>(
    `SELECT t.relname AS table_name, i.indisunique AS unique, i.indisprimary AS primary,
            i.indpred IS NOT NULL AS partial,
            (SELECT string_agg(a.attname, ',' ORDER BY k.ord)
               FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
               JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum) AS columns
     FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
     JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = 'public'`,
  );
  const checks = await db.all<{ table_name: string; column_name: string; definition: string }>(
    `SELECT t.relname AS table_name, a.attname AS column_name,
            pg_get_constraintdef(c.oid) AS definition
     FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
     JOIN pg_namespace n ON n.oid = t.relnamespace
     JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = c.conkey[1]
     WHERE n.nspname = 'public' AND c.contype = 'c'`,
  );
  const schema: Schema = {};
  for (const column of columns) {
    schema[column.table_name] ??= {
      columns: [],
      primaryKey: [],
      indexes: [],
      checks: [],
      identity: [],
      bigint: [],
    };
    const table = schema[column.table_name]!;
    const kind = ["integer", "bigint"].includes(column.data_type) ? "integer" : column.data_type;
    const fallback = column.column_default?.replace(/::[a-z ]+$/, "") ?? null;
    table.columns.push(
      columnShape(column.column_name, kind, column.is_nullable === "NO", fallback),
    );
    if (column.is_identity === "YES") table.identity!.push(column.column_name);
    if (column.data_type === "bigint" && column.is_identity !== "YES") {
      table.bigint!.push(column.column_name);
    }
  }
  for (const index of indexes) {
    const table = schema[index.table_name]!;
    const indexColumns = index.columns.split(",");
    if (index.primary) table.primaryKey = indexColumns;
    else table.indexes.push(indexShape(indexColumns, index.unique, index.partial));
  }
  for (const check of checks) {
    schema[check.table_name]!.checks.push(checkShape(check.column_name, check.definition));
  }
  for (const table of Object.values(schema)) {
    table.indexes.sort();
    table.checks.sort();
  }
  return Object.fromEntries(Object.entries(schema).sort(([a], [b]) => a.localeCompare(b)));
}

function columnShape(
  name: string,
  kind: string,
  notNull: boolean,
  fallback: string | null,
): string {
  return `${name} ${kind}${notNull ? " not null" : ""}${fallback === null ? "" : ` default ${fallback}`}`;
}

function indexShape(columns: string[], unique: boolean, partial: boolean): string {
  return `${unique ? "unique " : ""}(${columns.join(", ")})${partial ? " partial" : ""}`;
}

/** the quoted values a CHECK allows, or its comparison, whatever the dialect's spelling */
function checkShape(column: string, definition: string): string {
  const values = [...definition.matchAll(/'([^']*)'/g)].map((match) => match[1]).sort();
  return `${column}: ${values.length > 0 ? values.join(", ") : definition.replace(/[()\s]/g, "")}`;
}
