import type { Clock } from "../clock.ts";
import {
  CHANGE_STATES,
  type ChangePlan,
  type ChangeStatus,
  type ChangeVerb,
} from "../model/change.ts";
import type { SqlExecutor } from "./sql.ts";

/**
 * The changes table: one row per confirmed day-2 change. Every step that must happen once is
 * one conditional statement, so two replicas, a double click or a Slack retry race on the row
 * and exactly one wins: the insert (unique request key), an approval or rejection (only while
 * awaiting approval and not expired), and each status move after.
 */

export interface ChangeRecord {
  id: number;
  requestKey: string;
  verb: ChangeVerb;
  plan: ChangePlan;
  requester: string;
  /** where the change was asked; its card goes there */
  channel: string;
  status: ChangeStatus;
  approver?: string;
  /** Palette's refusal, or the last progress line */
  reason?: string;
  cardChannel?: string;
  cardTs?: string;
  requestChannel?: string;
  requestTs?: string;
  expiresAt?: number;
  createdAt: number;
  acceptedAt?: number;
  endedAt?: number;
  /** the last time the row moved (or its cards were recorded) */
  updatedAt: number;
  /** what Palette named the change (an on-demand backup's request uid), for following it */
  paletteRef?: string;
}

interface ChangeRow {
  id: number;
  request_key: string;
  verb: string;
  plan: string;
  requester: string;
  channel: string;
  status: string;
  approver: string | null;
  reason: string | null;
  card_channel: string | null;
  card_ts: string | null;
  request_channel: string | null;
  request_ts: string | null;
  expires_at: number | null;
  created_at: number;
  accepted_at: number | null;
  ended_at: number | null;
  updated_at: number;
  palette_ref: string | null;
}

const optional = <T>(value: T | null): T | undefined => (value === null ? undefined : value);
const optionalNumber = (value: number | null): number | undefined =>
  value === null ? undefined : Number(value);

function toRecord(row: ChangeRow): ChangeRecord {
  return {
    id: Number(row.id),
    requestKey: row.request_key,
    verb: row.verb as ChangeVerb,
    plan: JSON.parse(row.plan) as ChangePlan,
    requester: row.requester,
    channel: row.channel,
    status: row.status as ChangeStatus,
    approver: optional(row.approver),
    reason: optional(row.reason),
    cardChannel: optional(row.card_channel),
    cardTs: optional(row.card_ts),
    requestChannel: optional(row.request_channel),
    requestTs: optional(row.request_ts),
    expiresAt: optionalNumber(row.expires_at),
    createdAt: Number(row.created_at),
    acceptedAt: optionalNumber(row.accepted_at),
    endedAt: optionalNumber(row.ended_at),
    updatedAt: Number(row.updated_at),
    paletteRef: optional(row.palette_ref ?? null),
  };
}

export type ChangeClaim =
  | { kind: "created"; record: ChangeRecord }
  /** this confirmation was recorded before (a retry, a double submit, another replica) */
  | { kind: "duplicate"; record: ChangeRecord };

/** the states a change never moves out of (CHANGE_STATES): only these are ever pruned */
const ENDED_STATUSES = (Object.keys(CHANGE_STATES) as ChangeStatus[]).filter(
  (status) => CHANGE_STATES[status].moves.length === 0,
);

export class ChangeStore {
  constructor(
    private readonly db: SqlExecutor,
    private readonly clock: Clock,
  ) {}

  async create(input: {
    requestKey: string;
    plan: ChangePlan;
    requester: string;
    channel: string;
    /** `executing` goes straight to Palette; `awaiting_approval` waits for a second person */
    status: "executing" | "awaiting_approval";
    expiresAt?: number;
  }): Promise<ChangeClaim> {
    const now = this.clock.now();
    const { plan } = input;
    const inserted = await this.db.get<ChangeRow>(
      `INSERT INTO changes (request_key, verb, cluster_uid, cluster_name, project_uid, plan,
         requester, channel, status, expires_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (request_key) DO NOTHING RETURNING *`,
      [
        input.requestKey.slice(0, 200),
        plan.verb,
        plan.cluster.uid,
        plan.cluster.name,
        plan.cluster.projectUid,
        JSON.stringify(plan),
        input.requester,
        input.channel,
        input.status,
        input.expiresAt ?? null,
        now,
        now,
      ],
    );
    if (inserted) return { kind: "created", record: toRecord(inserted) };
    return { kind: "duplicate", record: (await this.byKey(input.requestKey))! };
  }

  async byKey(requestKey: string): Promise<ChangeRecord | undefined> {
    const row = await this.db.get<ChangeRow>("SELECT * FROM changes WHERE request_key = ?", [
      requestKey.slice(0, 200),
    ]);
    return row ? toRecord(row) : undefined;
  }

  async get(id: number): Promise<ChangeRecord | undefined> {
    const row = await this.db.get<ChangeRow>("SELECT * FROM changes WHERE id = ?", [id]);
    return row ? toRecord(row) : undefined;
  }

  /**
   * The second person's decision. Only one decision ever lands: the row must still await
   * approval and not have expired; undefined when it did not (read the row to say why).
   */
  async decide(
    id: number,
    approver: string,
    decision: "approve" | "reject",
  ): Promise<ChangeRecord | undefined> {
    const now = this.clock.now();
    const row = await this.db.get<ChangeRow>(
      `UPDATE changes SET status = ?, approver = ?, updated_at = ?
       WHERE id = ? AND status = 'awaiting_approval' AND expires_at > ? RETURNING *`,
      [decision === "approve" ? "executing" : "rejected", approver, now, id, now],
    );
    return row ? toRecord(row) : undefined;
  }

  /** requests whose time ran out while awaiting approval: marked expired, returned once */
  async expireDue(): Promise<ChangeRecord[]> {
    const now = this.clock.now();
    const rows = await this.db.all<ChangeRow>(
      `UPDATE changes SET status = 'expired', ended_at = ?, updated_at = ?
       WHERE status = 'awaiting_approval' AND expires_at <= ? RETURNING *`,
      [now, now, now],
    );
    return rows.map(toRecord);
  }

  /**
   * CHANGES_RETENTION_DAYS: deletes the changes that ended before `before` (epoch ms; a rejected
   * or expired request counts from its last move); one still open is kept whatever its age.
   * Returns how many went. The audit keeps its own rows of each change for AUDIT_RETENTION_DAYS.
   */
  async prune(before: number): Promise<number> {
    const result = await this.db.run(
      `DELETE FROM changes WHERE status IN (${ENDED_STATUSES.map(() => "?").join(", ")})
       AND COALESCE(ended_at, updated_at) < ?`,
      [...ENDED_STATUSES, before],
    );
    return result.changes;
  }

  /** moves `from` → `to` (and sets the fields given); undefined when the row was not at `from` */
  async move(
    id: number,
    from: ChangeStatus,
    to: ChangeStatus,
    fields: { reason?: string; paletteRef?: string } = {},
  ): Promise<ChangeRecord | undefined> {
    const now = this.clock.now();
    const ended = to === "done" || to === "failed" ? now : null;
    const accepted = to === "accepted" ? now : null;
    const row = await this.db.get<ChangeRow>(
      `UPDATE changes SET status = ?, reason = COALESCE(?, reason),
         palette_ref = COALESCE(?, palette_ref),
         accepted_at = COALESCE(?, accepted_at), ended_at = COALESCE(?, ended_at), updated_at = ?
       WHERE id = ? AND status = ? RETURNING *`,
      [to, fields.reason ?? null, fields.paletteRef ?? null, accepted, ended, now, id, from],
    );
    return row ? toRecord(row) : undefined;
  }

  async setCard(id: number, channel: string, ts: string): Promise<void> {
    await this.db.run(
      "UPDATE changes SET card_channel = ?, card_ts = ?, updated_at = ? WHERE id = ?",
      [channel, ts, this.clock.now(), id],
    );
  }

  async setRequestCard(id: number, channel: string, ts: string): Promise<void> {
    await this.db.run(
      "UPDATE changes SET request_channel = ?, request_ts = ?, updated_at = ? WHERE id = ?",
      [channel, ts, this.clock.now(), id],
    );
  }

  /** changes Palette accepted that have not reached their end: the follower's work */
  async following(): Promise<ChangeRecord[]> {
    const rows = await this.db.all<ChangeRow>(
      "SELECT * FROM changes WHERE status = 'accepted' ORDER BY id",
    );
    return rows.map(toRecord);
  }

  /** changes whose request went out without an answer: the follower reads Palette for them */
  async unconfirmed(): Promise<ChangeRecord[]> {
    const rows = await this.db.all<ChangeRow>(
      "SELECT * FROM changes WHERE status = 'unconfirmed' ORDER BY id",
    );
    return rows.map(toRecord);
  }

  /**
   * claimed changes that have not moved since `before`: the replica sending them is gone (or
   * stopped between Palette's answer and the store). Reconciled by reading, never sent again.
   */
  async stuckExecuting(before: number): Promise<ChangeRecord[]> {
    const rows = await this.db.all<ChangeRow>(
      "SELECT * FROM changes WHERE status = 'executing' AND updated_at < ? ORDER BY id",
      [before],
    );
    return rows.map(toRecord);
  }

  async all(): Promise<ChangeRecord[]> {
    const rows = await this.db.all<ChangeRow>("SELECT * FROM changes ORDER BY id");
    return rows.map(toRecord);
  }
}
