import type { NotifyEvent, NotifyEventKind, UnhealthySince } from "../model/channel-digest.ts";
import { chunks, ROWS_PER_INSERT } from "./snapshots.ts";
import type { SqlExecutor } from "./sql.ts";

interface EventRow {
  at: string;
  cluster_uid: string;
  name: string;
  project_uid: string;
  tags: string;
  kind: string;
  detail: string | null;
}

function parseTags(raw: string): string[] {
  try {
    const value: unknown = JSON.parse(raw);
    return Array.isArray(value) ? value.filter((t): t is string => typeof t === "string") : [];
  } catch {
    return [];
  }
}

const toEvent = (row: EventRow): NotifyEvent => ({
  at: row.at,
  clusterUid: row.cluster_uid,
  name: row.name,
  project: row.project_uid,
  tags: parseTags(row.tags),
  kind: row.kind as NotifyEventKind,
  ...(row.detail === null ? {} : { detail: row.detail }),
});

/** Clusters that turned unhealthy (a start never moves an earlier one) and those that are not any more. */
export interface UnhealthyMoves {
  start: Array<{ clusterUid: string } & UnhealthySince>;
  end: string[];
}

/**
 * What the poll saw, for the digest: one row per fact (launched, deleted, state and health
 * moves, alerts), and since when each cluster has been unhealthy. Writes run inside the poll's
 * one transaction, so the log says exactly what the snapshots and the outbox say.
 */
export class NotifyEventLog {
  constructor(private readonly db: SqlExecutor) {}

  async append(events: readonly NotifyEvent[]): Promise<void> {
    // ROWS_PER_INSERT to a statement, in order, one statement at a time: the poll's fenced
    // transaction is one client, which pg 9 lets run one query only, and each round trip lengthens it
    for (const part of chunks(events, ROWS_PER_INSERT)) {
      await this.db.run(
        `INSERT INTO notify_events (at, cluster_uid, name, project_uid, tags, kind, detail)
         VALUES ${part.map(() => "(?, ?, ?, ?, ?, ?, ?)").join(", ")}`,
        part.flatMap((e) => [
          e.at,
          e.clusterUid,
          e.name,
          e.project,
          JSON.stringify(e.tags),
          e.kind,
          e.detail ?? null,
        ]),
      );
    }
  }

  /** events after `from` up to and including `to` (ISO), oldest first */
  async between(from: string, to: string): Promise<NotifyEvent[]> {
    const rows = await this.db.all<EventRow>(
      "SELECT * FROM notify_events WHERE at > ? AND at <= ? ORDER BY at, id",
      [from, to],
    );
    return rows.map(toEvent);
  }

  async prune(before: string): Promise<number> {
    return (await this.db.run("DELETE FROM notify_events WHERE at < ?", [before])).changes;
  }

  async applyUnhealthy(moves: UnhealthyMoves): Promise<void> {
    // one at a time, ends first (a cluster that ended and started again keeps the new start)
    for (const uid of moves.end) {
      await this.db.run("DELETE FROM notify_unhealthy_since WHERE cluster_uid = ?", [uid]);
    }
    for (const s of moves.start) {
      await this.db.run(
        `INSERT INTO notify_unhealthy_since (cluster_uid, since, exact) VALUES (?, ?, ?)
         ON CONFLICT (cluster_uid) DO NOTHING`,
        [s.clusterUid, s.since, s.exact ? 1 : 0],
      );
    }
  }

  async unhealthySince(): Promise<Map<string, UnhealthySince>> {
    const rows = await this.db.all<{ cluster_uid: string; since: string; exact: number }>(
      "SELECT cluster_uid, since, exact FROM notify_unhealthy_since ORDER BY since",
    );
    return new Map(rows.map((r) => [r.cluster_uid, { since: r.since, exact: r.exact === 1 }]));
  }
}
