import Database from "better-sqlite3";
import pg from "pg";
import { type CommittedMove, committedMoves, type NotifyEventRow } from "./score-committed.ts";

/**
 * What the bots committed, read from their store after (or during) a run: the state and health
 * moves of `notify_events`, which the poll writes in the transaction that adds their outbox rows.
 */

const QUERY = "SELECT at, name, project_uid, kind, detail FROM notify_events ORDER BY at, id";

/** From the SQLite file, read-only beside the running bot (WAL lets a reader in). */
export function committedInSqlite(path: string): CommittedMove[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return committedMoves(db.prepare(QUERY).all() as NotifyEventRow[]);
  } finally {
    db.close();
  }
}

/** From the replicas' PostgreSQL database. */
export async function committedInPostgres(databaseUrl: string): Promise<CommittedMove[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return committedMoves((await client.query<NotifyEventRow>(QUERY)).rows);
  } finally {
    await client.end();
  }
}
