import { existsSync } from "node:fs";
import { ConfigError, loadStoreConfig, type StateStore } from "../config.ts";
import { type CopiedTable, copyStore, liveLeaseIn, rowsIn, StoreCopyError } from "../store/copy.ts";
import { openStore } from "../store/open.ts";
import type { SqlDb, SqlExecutor } from "../store/sql.ts";
import { openSqlite } from "../store/sqlite.ts";

/**
 * `palette-chatops migrate-store`, `backup` and `restore` (issue 38 item 5): a store copied into
 * another, empty one (src/store/copy.ts). A backup is always a SQLite file, whatever the store,
 * so one file restores into either backend. Each prints a line per table and a total; a refusal
 * is one line saying what to do, exit 1. No URL is printed (it holds the password).
 */

type Write = (line: string) => void;

const MIGRATE_USAGE =
  "usage: palette-chatops migrate-store --from <SQLite file> [--to <postgres://… URL>]   (DATABASE_URL when --to is left out)";

/** `--name value` or `--name=value` */
function option(args: string[], name: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === `--${name}`) return args[i + 1];
    if (arg.startsWith(`--${name}=`)) return arg.slice(name.length + 3);
  }
  return undefined;
}

function report(copied: CopiedTable[], what: string, write: Write): void {
  for (const { table, rows } of copied) write(`  ${table.padEnd(28)} ${rows}`);
  const total = copied.reduce((sum, table) => sum + table.rows, 0);
  write(`${what}: ${total} rows in ${copied.length} tables`);
}

/** A SQLite file that must exist already: opening a missing one would create an empty store. */
async function openExistingSqlite(path: string, role: string): Promise<SqlDb> {
  if (path === ":memory:" || !existsSync(path)) {
    throw new StoreCopyError(`${role} ${path} does not exist`);
  }
  return openSqlite(path);
}

function describe(store: StateStore): string {
  return store.kind === "postgres" ? "PostgreSQL" : `the SQLite file ${store.path}`;
}

async function refusing(run: () => Promise<number>, write: Write): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof StoreCopyError || error instanceof ConfigError) {
      write(`refused: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

type Env = Record<string, string | undefined>;

/** A verb of one file argument, reading the store from the environment. */
function fileVerb(
  usage: string,
  run: (file: string, env: Env, write: Write) => Promise<number>,
): (args: string[], env: Env, write: Write) => Promise<number> {
  return (args, env, write) =>
    refusing(async () => {
      const file = args[0];
      if (!file) {
        write(usage);
        return 2;
      }
      return run(file, env, write);
    }, write);
}

/**
 * SQLite to PostgreSQL: the way from one replica to two. The URL may come from DATABASE_URL
 * instead of `--to`, so a pod given the database's Secret keeps the password off its command line.
 */
export function migrateStoreCli(args: string[], env: Env, write: Write): Promise<number> {
  return refusing(async () => {
    const fromPath = option(args, "from");
    const toUrl = option(args, "to") ?? env.DATABASE_URL;
    if (!fromPath || !toUrl) {
      write(MIGRATE_USAGE);
      return 2;
    }
    const target = loadStoreConfig({ DATABASE_URL: toUrl });
    return copySqliteInto(
      fromPath,
      "the SQLite file",
      target,
      `copied ${fromPath} into PostgreSQL`,
      write,
      true,
    );
  }, write);
}

/**
 * The store (STATE_DB / DATABASE_URL) into a new SQLite file, while the bot runs: SQLite's
 * `VACUUM INTO` takes a consistent copy of the file; PostgreSQL's tables are read in one
 * REPEATABLE READ transaction, one snapshot of them all.
 */
export const backupCli = fileVerb(
  "usage: palette-chatops backup <file>   (a new SQLite file)",
  async (file, env, write) => {
    if (existsSync(file)) throw new StoreCopyError(`${file} exists already; name a new file`);
    const store = loadStoreConfig(env);
    if (store.kind === "sqlite") {
      const from = await openExistingSqlite(store.path, "the store (STATE_DB)");
      try {
        await from.run("VACUUM INTO ?", [file]);
      } finally {
        await from.close();
      }
      const copy = await openSqlite(file);
      try {
        report(await rowsIn(copy), `backed up ${describe(store)} to ${file}`, write);
      } finally {
        await copy.close();
      }
      return 0;
    }
    const from = await openStore(store);
    const to = await openSqlite(file);
    try {
      const copied = await from.transaction(async (tx) => {
        await tx.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
        return copyStore({ ...bind(tx), dialect: "postgres" }, to);
      });
      report(copied, `backed up PostgreSQL to ${file}`, write);
    } finally {
      await to.close();
      await from.close();
    }
    return 0;
  },
);

/** A backup file into the store (STATE_DB / DATABASE_URL), which must be new or empty. */
export const restoreCli = fileVerb(
  "usage: palette-chatops restore <file>   (a file `backup` wrote)",
  async (file, env, write) => {
    const store = loadStoreConfig(env);
    return copySqliteInto(
      file,
      "the backup",
      store,
      `restored ${file} into ${describe(store)}`,
      write,
      false,
    );
  },
);

/**
 * Refuses a store a bot runs on: a copy from it would miss what the bot writes meanwhile, and a
 * copy into it would be overwritten by the bot, or fail half-way against its writes.
 */
async function refuseRunningBot(
  db: SqlExecutor & Pick<SqlDb, "dialect">,
  role: string,
  now: number,
): Promise<void> {
  const lease = await liveLeaseIn(db, now);
  if (!lease) return;
  throw new StoreCopyError(
    `a bot runs on ${role}: replica ${lease.holder} holds its lease ${lease.name} until ${new Date(lease.expiresAt).toISOString()}. Stop every replica first (kubectl scale deployment/<release> --replicas=0), wait for that time to pass, and run this again`,
  );
}

/**
 * An existing SQLite file into a store, which must be empty: `migrate-store` and `restore`. The
 * source is read in one transaction, one snapshot of every table; SQLite's is a write lock, so a
 * bot cannot start writing to the file between the lease check and the last read. A backup
 * file's own lease is not checked: `backup` of a running bot copies its live lease row.
 */
async function copySqliteInto(
  path: string,
  role: string,
  target: StateStore,
  what: string,
  write: Write,
  checkSourceLease: boolean,
): Promise<number> {
  const from = await openExistingSqlite(path, role);
  try {
    const to = await openStore(target);
    try {
      const now = Date.now();
      await refuseRunningBot(to, describe(target), now);
      const copied = await from.transaction(async (tx) => {
        const source = { ...bind(tx), dialect: from.dialect };
        if (checkSourceLease) await refuseRunningBot(source, role, now);
        return copyStore(source, to);
      });
      report(copied, what, write);
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
  return 0;
}

/** a transaction's executor with its methods bound, to pass on as a plain object */
function bind(tx: Pick<SqlDb, "all" | "get" | "run">): Pick<SqlDb, "all" | "get" | "run"> {
  return {
    all: (sql, params) => tx.all(sql, params),
    get: (sql, params) => tx.get(sql, params),
    run: (sql, params) => tx.run(sql, params),
  };
}
