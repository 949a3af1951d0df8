import { existsSync } from "node:fs";
import Database from "better-sqlite3";
import type { StateStore } from "../config.ts";
import { SINGLETONS_LEASE } from "./lease.ts";
import { MIGRATIONS } from "./migrations/index.ts";
import { POSTGRES_MIGRATIONS } from "./migrations/postgres.ts";
import { openPostgres } from "./postgres.ts";
import type { SqlExecutor } from "./sql.ts";

/**
 * What `palette-chatops doctor` reads of the store, without changing it: a doctor that applied
 * migrations or created the SQLite file would hide the very state it was asked about (and
 * would write to a production database from a `helm test` pod). So SQLite is opened read-only
 * and PostgreSQL is only queried; the bot itself migrates at start.
 */
export interface StoreInspection {
  kind: StateStore["kind"];
  /** false: the SQLite file does not exist yet (the bot creates it at start) */
  exists: boolean;
  /** migration ids the store has applied, ascending */
  applied: number[];
  /** migration ids this build knows, ascending */
  head: number[];
  /** the live leader lease (PostgreSQL); undefined when free or expired, or on SQLite */
  lease?: { holder: string; expiresAt: number };
  /** the channels with at least one subscription, paused or not */
  channels: string[];
}

export interface InspectOptions {
  /** epoch ms, for the lease's expiry */
  now: number;
  /** the longest a PostgreSQL connection may take to open */
  connectTimeoutMs: number;
}

const ids = (rows: Array<{ id: number }>) =>
  rows.map((row) => Number(row.id)).sort((a, b) => a - b);
const headOf = (migrations: ReadonlyArray<{ id: number }>) => ids([...migrations]);

export async function inspectStore(
  store: StateStore,
  options: InspectOptions,
): Promise<StoreInspection> {
  return store.kind === "sqlite" ? inspectSqlite(store.path) : inspectPostgres(store, options);
}

function inspectSqlite(path: string): StoreInspection {
  const head = headOf(MIGRATIONS);
  if (path !== ":memory:" && !existsSync(path)) {
    return { kind: "sqlite", exists: false, applied: [], head, channels: [] };
  }
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const has = (table: string) =>
      db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !==
      undefined;
    const applied = has("schema_migrations")
      ? ids(db.prepare("SELECT id FROM schema_migrations").all() as Array<{ id: number }>)
      : [];
    const channels = has("notify_subscriptions")
      ? (
          db
            .prepare("SELECT DISTINCT channel FROM notify_subscriptions ORDER BY channel")
            .all() as Array<{ channel: string }>
        ).map((row) => row.channel)
      : [];
    return { kind: "sqlite", exists: true, applied, head, channels };
  } finally {
    db.close();
  }
}

async function inspectPostgres(
  store: Extract<StateStore, { kind: "postgres" }>,
  options: InspectOptions,
): Promise<StoreInspection> {
  const db = await openPostgres(store.url, {
    max: 1,
    connectionTimeoutMs: options.connectTimeoutMs,
    applicationName: "palette-chatops-doctor",
  });
  try {
    const has = async (table: string) =>
      (await db.get<{ name: string | null }>("SELECT to_regclass(?) AS name", [table]))?.name !=
      null;
    const applied = (await has("schema_migrations"))
      ? ids(await db.all<{ id: number }>("SELECT id FROM schema_migrations"))
      : [];
    const lease = (await has("leader_leases")) ? await liveLease(db, options.now) : undefined;
    const channels = (await has("notify_subscriptions"))
      ? (
          await db.all<{ channel: string }>(
            "SELECT DISTINCT channel FROM notify_subscriptions ORDER BY channel",
          )
        ).map((row) => row.channel)
      : [];
    return {
      kind: "postgres",
      exists: true,
      applied,
      head: headOf(POSTGRES_MIGRATIONS),
      ...(lease ? { lease } : {}),
      channels,
    };
  } finally {
    await db.close().catch(() => {});
  }
}

async function liveLease(
  db: SqlExecutor,
  now: number,
): Promise<{ holder: string; expiresAt: number } | undefined> {
  const row = await db.get<{ holder: string; expires_at: number }>(
    "SELECT holder, expires_at FROM leader_leases WHERE name = ? AND expires_at > ?",
    [SINGLETONS_LEASE, now],
  );
  return row && { holder: row.holder, expiresAt: Number(row.expires_at) };
}
