import type { Clock } from "../clock.ts";
import type { SqlExecutor } from "./sql.ts";

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
  | "unmute";
export type AuditOutcome = "granted" | "denied" | "failed" | "created" | "rejected" | "removed";

export interface AuditRecord {
  at: string;
  userId: string;
  action: AuditAction;
  /** what was acted on: cluster name/uid, or provider/name for a launch */
  target: string;
  outcome: AuditOutcome;
  /** JSON with secrets already removed */
  detail?: string;
}

export class AuditLog {
  constructor(
    private readonly db: SqlExecutor,
    private readonly clock: Clock,
  ) {}

  async record(entry: Omit<AuditRecord, "at">): Promise<AuditRecord> {
    const record: AuditRecord = { at: new Date(this.clock.now()).toISOString(), ...entry };
    await this.db.run(
      "INSERT INTO audit (at, user_id, action, target, outcome, detail) VALUES (?, ?, ?, ?, ?, ?)",
      [
        record.at,
        record.userId,
        record.action,
        record.target,
        record.outcome,
        record.detail ?? null,
      ],
    );
    return record;
  }

  recent(limit = 50): Promise<AuditRecord[]> {
    return this.db.all<AuditRecord>(
      `SELECT at, user_id AS "userId", action, target, outcome, detail FROM audit ORDER BY id DESC LIMIT ?`,
      [limit],
    );
  }
}
