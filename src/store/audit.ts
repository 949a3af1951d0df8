import type { Clock } from "../clock.ts";
import type { SqlExecutor, SqlValue } from "./sql.ts";

/**
 * what was attempted; `read` covers the read-only verbs, refused when outside the watched
 * projects; snooze and mute (and their ends) silence a channel's notifications for a while
 */
export type AuditAction =
  | "ack"
  | "kubeconfig"
  | "launch"
  | "read"
  | "subscribe"
  | "unsubscribe"
  /** a channel's digest schedule set or replaced, or turned off */
  | "digest-set"
  | "digest-off"
  | "snooze"
  | "unsnooze"
  | "mute"
  /** a Slack user linked to or unlinked from their Palette user (detail says which) */
  | "identity"
  /** a day-2 change (scale, delete, …): asked, refused, approved, sent, ended */
  | "change"
  /** a freeze set or lifted */
  | "freeze"
  /** `/palette audit`: an export of these rows asked for (granted with its count, or denied) */
  | "audit-export"
  | "unmute"
  /** a question to the assistant (issue 33): who, where, the reads, tokens, the model */
  | "assistant";
/**
 * `expired`: an approval request whose time ran out; `accepted`: Palette took a change;
 * `done`: the change reached its end in Palette; `unconfirmed`: Palette did not answer a write
 */
export type AuditOutcome =
  | "granted"
  | "denied"
  | "failed"
  | "created"
  | "rejected"
  | "removed"
  | "expired"
  | "accepted"
  | "done"
  | "unconfirmed";

/**
 * The columns a day-2 change's rows carry (src/changes/audit-trail.ts fills them); other
 * actions, and rows written before they existed, leave them empty
 */
export interface AuditChangeColumns {
  /** request, refused, approved, rejected, expired, answer, end */
  step?: string;
  changeId?: number;
  clusterUid?: string;
  projectUid?: string;
  requester?: string;
  approver?: string;
  /** the Palette user the change was sent as (a linked person's, or the bot's service account) */
  paletteUser?: string;
}

export interface AuditRecord extends AuditChangeColumns {
  at: string;
  userId: string;
  action: AuditAction;
  /** what was acted on: cluster name/uid, or provider/name for a launch */
  target: string;
  outcome: AuditOutcome;
  /** JSON with secrets already removed */
  detail?: string;
}

/** which rows an export reads: since a time, and about a cluster or a person if given */
export interface AuditQuery {
  /** ISO time; rows at or after it */
  since: string;
  /** a cluster's uid, or its name as the rows' target ends with it */
  cluster?: string;
  /** a Slack user: rows they acted in, asked for or approved */
  userId?: string;
  /** at most this many rows, newest kept */
  limit: number;
}

/**
 * What an export reads, every filter applied by the store (issue 31: filtering after a LIMIT
 * lost whatever was older than the newest rows); paged oldest first by `page()`.
 */
export interface AuditExportQuery {
  /** ISO time; rows at or after it */
  since: string;
  /** ISO time; rows at or before it */
  until: string;
  /** a cluster's uid, or its name as the rows' target ends with it */
  cluster?: string;
  /** a Slack user: rows they acted in, asked for or approved */
  userId?: string;
  /** `project:<uid>`: rows about that project */
  projectUid?: string;
  /** `user:<email>`: rows sent as that Palette user (any case) */
  paletteUser?: string;
}

/** where the last page ended: the next page starts after this row */
export interface AuditCursor {
  at: string;
  id: number;
}

const COLUMNS = `at, user_id AS "userId", action, target, outcome, detail, step,
  change_id AS "changeId", cluster_uid AS "clusterUid", project_uid AS "projectUid",
  requester, approver, palette_user AS "paletteUser"`;

export class AuditLog {
  constructor(
    private readonly db: SqlExecutor,
    private readonly clock: Clock,
  ) {}

  async record(entry: Omit<AuditRecord, "at">): Promise<AuditRecord> {
    const record: AuditRecord = { at: new Date(this.clock.now()).toISOString(), ...entry };
    await this.db.run(
      `INSERT INTO audit (at, user_id, action, target, outcome, detail, step, change_id,
         cluster_uid, project_uid, requester, approver, palette_user)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        record.at,
        record.userId,
        record.action,
        record.target,
        record.outcome,
        record.detail ?? null,
        record.step ?? null,
        record.changeId ?? null,
        record.clusterUid ?? null,
        record.projectUid ?? null,
        record.requester ?? null,
        record.approver ?? null,
        record.paletteUser ?? null,
      ],
    );
    return record;
  }

  async recent(limit = 50): Promise<AuditRecord[]> {
    const rows = await this.db.all<AuditRow>(
      `SELECT ${COLUMNS} FROM audit ORDER BY id DESC LIMIT ?`,
      [limit],
    );
    return rows.map(toRecord);
  }

  /** the rows an export asked for, oldest first */
  async find(query: AuditQuery): Promise<AuditRecord[]> {
    const where = ["at >= ?"];
    const params: SqlValue[] = [query.since];
    if (query.cluster !== undefined) {
      // old rows name the cluster in the target only ("scale prod-1", "approve scale prod-1")
      where.push("(cluster_uid = ? OR target = ? OR target LIKE ? ESCAPE '\\')");
      params.push(query.cluster, query.cluster, `% ${escapeLike(query.cluster)}`);
    }
    if (query.userId !== undefined) {
      where.push("(user_id = ? OR requester = ? OR approver = ?)");
      params.push(query.userId, query.userId, query.userId);
    }
    const rows = await this.db.all<AuditRow>(
      `SELECT ${COLUMNS} FROM audit WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT ?`,
      [...params, query.limit],
    );
    return rows.map(toRecord).reverse();
  }

  /**
   * One page of an export, oldest first (by time, then by row), after `cursor`: an export reads
   * page after page so a large one never sits in memory whole.
   */
  async page(
    query: AuditExportQuery,
    cursor: AuditCursor | undefined,
    limit: number,
  ): Promise<Array<{ record: AuditRecord; cursor: AuditCursor }>> {
    const where = ["at >= ?", "at <= ?"];
    const params: SqlValue[] = [query.since, query.until];
    if (cursor !== undefined) {
      where.push("(at > ? OR (at = ? AND id > ?))");
      params.push(cursor.at, cursor.at, cursor.id);
    }
    if (query.cluster !== undefined) {
      where.push("(cluster_uid = ? OR target = ? OR target LIKE ? ESCAPE '\\')");
      params.push(query.cluster, query.cluster, `% ${escapeLike(query.cluster)}`);
    }
    if (query.userId !== undefined) {
      where.push("(user_id = ? OR requester = ? OR approver = ?)");
      params.push(query.userId, query.userId, query.userId);
    }
    if (query.projectUid !== undefined) {
      where.push("project_uid = ?");
      params.push(query.projectUid);
    }
    if (query.paletteUser !== undefined) {
      where.push("LOWER(palette_user) = ?");
      params.push(query.paletteUser.toLowerCase());
    }
    const rows = await this.db.all<AuditRow & { rowId: number | string }>(
      `SELECT id AS "rowId", ${COLUMNS} FROM audit WHERE ${where.join(" AND ")}
       ORDER BY at, id LIMIT ?`,
      [...params, limit],
    );
    return rows.map(({ rowId, ...row }) => ({
      record: toRecord(row),
      cursor: { at: row.at, id: Number(rowId) },
    }));
  }

  /** the Palette user a change was sent as, from its `answer` row */
  async paletteUserOf(changeId: number): Promise<string | undefined> {
    const row = await this.db.get<{ paletteUser: string }>(
      `SELECT palette_user AS "paletteUser" FROM audit
       WHERE change_id = ? AND step = 'answer' AND palette_user IS NOT NULL
       ORDER BY id DESC LIMIT 1`,
      [changeId],
    );
    return row?.paletteUser;
  }

  /** AUDIT_RETENTION_DAYS: deletes the rows older than `before` (epoch ms); returns how many */
  async prune(before: number): Promise<number> {
    const result = await this.db.run("DELETE FROM audit WHERE at < ?", [
      new Date(before).toISOString(),
    ]);
    return result.changes;
  }
}

type AuditRow = Omit<AuditRecord, "changeId"> & { changeId: number | string | null };

/** NULL columns left out (old rows read as before); PostgreSQL's BIGINT change id as a number */
function toRecord(row: AuditRow): AuditRecord {
  const record: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (value !== null && value !== undefined) record[key] = value;
  }
  if (row.changeId !== null && row.changeId !== undefined) record.changeId = Number(row.changeId);
  if (row.detail === null) record.detail = null;
  return record as unknown as AuditRecord;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}
