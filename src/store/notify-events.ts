import type { NotifyEvent, NotifyEventKind, UnhealthySince } from "../model/channel-digest.ts";
import type { Db } from "./db.ts";

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
  constructor(private readonly db: Db) {}

  append(events: readonly NotifyEvent[]): void {
    const insert = this.db.prepare(
      `INSERT INTO notify_events (at, cluster_uid, name, project_uid, tags, kind, detail)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const e of events) {
      insert.run(
        e.at,
        e.clusterUid,
        e.name,
        e.project,
        JSON.stringify(e.tags),
        e.kind,
        e.detail ?? null,
      );
    }
  }

  /** events after `from` up to and including `to` (ISO), oldest first */
  between(from: string, to: string): NotifyEvent[] {
    return (
      this.db
        .prepare("SELECT * FROM notify_events WHERE at > ? AND at <= ? ORDER BY at, id")
        .all(from, to) as EventRow[]
    ).map(toEvent);
  }

  prune(before: string): number {
    return this.db.prepare("DELETE FROM notify_events WHERE at < ?").run(before).changes;
  }

  applyUnhealthy(moves: UnhealthyMoves): void {
    const start = this.db.prepare(
      "INSERT OR IGNORE INTO notify_unhealthy_since (cluster_uid, since, exact) VALUES (?, ?, ?)",
    );
    const end = this.db.prepare("DELETE FROM notify_unhealthy_since WHERE cluster_uid = ?");
    for (const uid of moves.end) end.run(uid);
    for (const s of moves.start) start.run(s.clusterUid, s.since, s.exact ? 1 : 0);
  }

  unhealthySince(): Map<string, UnhealthySince> {
    const rows = this.db
      .prepare("SELECT cluster_uid, since, exact FROM notify_unhealthy_since ORDER BY since")
      .all() as Array<{ cluster_uid: string; since: string; exact: number }>;
    return new Map(rows.map((r) => [r.cluster_uid, { since: r.since, exact: r.exact === 1 }]));
  }
}
