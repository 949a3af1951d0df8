import type { EdgeHostRecord, EdgeTold } from "../model/edge-host.ts";
import { chunks } from "./snapshots.ts";
import type { SqlExecutor, SqlValue } from "./sql.ts";

/**
 * The bot's memory of the edge fleet (migration 111, issue 39): one row per host it has read,
 * with the times only the bot can measure (unhealthy since, last seen healthy) and what the
 * channels were told. Written by the poll inside its transaction (pass the transaction's
 * executor), read by the poll, `/palette edge host` and `why`.
 */

interface EdgeHostRow {
  host_uid: string;
  scope: string;
  project_uid: string;
  name: string;
  site: string | null;
  tags: string;
  cluster_uid: string | null;
  cluster_name: string | null;
  state: string;
  health: string;
  message: string | null;
  agent_version: string | null;
  modified_at: number | string | null;
  first_seen_at: number | string;
  seen_at: number | string;
  unhealthy_since: number | string | null;
  last_seen_healthy: number | string | null;
  told: string;
}

const COLUMNS = [
  "host_uid",
  "scope",
  "project_uid",
  "name",
  "site",
  "tags",
  "cluster_uid",
  "cluster_name",
  "state",
  "health",
  "message",
  "agent_version",
  "modified_at",
  "first_seen_at",
  "seen_at",
  "unhealthy_since",
  "last_seen_healthy",
  "told",
] as const;

/** PostgreSQL hands BIGINT back as text; SQLite as a number. */
const time = (value: number | string | null): number | undefined =>
  value === null ? undefined : Number(value);

function parseTags(text: string): string[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed)
      ? parsed.filter((tag): tag is string => typeof tag === "string")
      : [];
  } catch {
    return [];
  }
}

function toRecord(row: EdgeHostRow): EdgeHostRecord {
  const record: EdgeHostRecord = {
    uid: row.host_uid,
    scope: row.scope,
    projectUid: row.project_uid,
    name: row.name,
    tags: parseTags(row.tags),
    state: row.state,
    health: row.health,
    firstSeenAt: Number(row.first_seen_at),
    seenAt: Number(row.seen_at),
    told: (["", "unhealthy", "unpaired"].includes(row.told) ? row.told : "") as EdgeTold,
  };
  const optional: Array<[keyof EdgeHostRecord, string | number | undefined]> = [
    ["site", row.site ?? undefined],
    ["clusterUid", row.cluster_uid ?? undefined],
    ["clusterName", row.cluster_name ?? undefined],
    ["message", row.message ?? undefined],
    ["agentVersion", row.agent_version ?? undefined],
    ["modifiedAt", time(row.modified_at)],
    ["unhealthySince", time(row.unhealthy_since)],
    ["lastSeenHealthy", time(row.last_seen_healthy)],
  ];
  for (const [key, value] of optional) {
    if (value !== undefined) (record as unknown as Record<string, unknown>)[key] = value;
  }
  return record;
}

function toValues(record: EdgeHostRecord): SqlValue[] {
  return [
    record.uid,
    record.scope,
    record.projectUid,
    record.name,
    record.site ?? null,
    JSON.stringify(record.tags),
    record.clusterUid ?? null,
    record.clusterName ?? null,
    record.state,
    record.health,
    record.message ?? null,
    record.agentVersion ?? null,
    record.modifiedAt ?? null,
    record.firstSeenAt,
    record.seenAt,
    record.unhealthySince ?? null,
    record.lastSeenHealthy ?? null,
    record.told,
  ];
}

const UPSERT = `INSERT INTO edge_hosts (${COLUMNS.join(", ")})
  VALUES (${COLUMNS.map(() => "?").join(", ")})
  ON CONFLICT (host_uid) DO UPDATE SET ${COLUMNS.slice(1)
    .map((column) => `${column} = excluded.${column}`)
    .join(", ")}`;

export class EdgeHostStore {
  constructor(private readonly db: SqlExecutor) {}

  /** Another executor's view (the poll's transaction). */
  within(tx: SqlExecutor): EdgeHostStore {
    return new EdgeHostStore(tx);
  }

  async get(uids: readonly string[]): Promise<Map<string, EdgeHostRecord>> {
    const found = new Map<string, EdgeHostRecord>();
    for (const part of chunks([...new Set(uids)])) {
      const rows = await this.db.all<EdgeHostRow>(
        `SELECT * FROM edge_hosts WHERE host_uid IN (${part.map(() => "?").join(", ")})`,
        part,
      );
      for (const row of rows) found.set(row.host_uid, toRecord(row));
    }
    return found;
  }

  /** Every host read in this scope. */
  async inScope(scope: string): Promise<EdgeHostRecord[]> {
    const rows = await this.db.all<EdgeHostRow>(
      "SELECT * FROM edge_hosts WHERE scope = ? ORDER BY host_uid",
      [scope],
    );
    return rows.map(toRecord);
  }

  /** The hosts of the scope that are not healthy, or that a channel was told of. */
  async notHealthy(scope: string): Promise<EdgeHostRecord[]> {
    const rows = await this.db.all<EdgeHostRow>(
      `SELECT * FROM edge_hosts WHERE scope = ?
        AND (health <> 'healthy' OR state = 'unpaired' OR told <> '') ORDER BY host_uid`,
      [scope],
    );
    return rows.map(toRecord);
  }

  /** The newest Palette change the scope's reads have seen: where an incremental read stops. */
  async watermark(scope: string): Promise<number | undefined> {
    const row = await this.db.get<{ at: number | string | null }>(
      "SELECT MAX(modified_at) AS at FROM edge_hosts WHERE scope = ?",
      [scope],
    );
    return time(row?.at ?? null);
  }

  async count(scope: string): Promise<number> {
    const row = await this.db.get<{ n: number | string }>(
      "SELECT COUNT(*) AS n FROM edge_hosts WHERE scope = ?",
      [scope],
    );
    return Number(row?.n ?? 0);
  }

  async save(records: readonly EdgeHostRecord[]): Promise<void> {
    for (const record of records) await this.db.run(UPSERT, toValues(record));
  }

  async forget(uids: readonly string[]): Promise<void> {
    for (const part of chunks([...new Set(uids)])) {
      await this.db.run(
        `DELETE FROM edge_hosts WHERE host_uid IN (${part.map(() => "?").join(", ")})`,
        part,
      );
    }
  }
}
