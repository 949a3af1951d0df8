import { randomBytes } from "node:crypto";
import type { Clock } from "../clock.ts";
import {
  assertMove,
  CHANGE_STATES,
  type ChangePlan,
  type ChangeStatus,
  type ChangeVerb,
} from "../model/change.ts";
import type { SqlExecutor, SqlValue } from "./sql.ts";

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
  /** while `executing`: the last time its sender said it is still at work (src/changes/claim.ts) */
  heartbeatAt?: number;
  /** when it became `unconfirmed`: its "not applied" window runs from here (migration 89) */
  unconfirmedAt?: number;
  /** the change card as it should read now, until Slack takes it (src/changes/card-delivery.ts) */
  cardOwed?: Owed<OwedCard>;
  /** the approval request card's edit, until Slack takes it */
  requestOwed?: Owed<OwedRequest>;
}

/** what the change card must say: the rest (plan, requester, approver) is the row's */
export interface OwedCard {
  status: ChangeStatus;
  line?: string;
  took?: string;
  paletteUser?: string;
}

/** the approval request card is drawn from the row; `line` is what it adds (a reason) */
export interface OwedRequest {
  line?: string;
}

/** a card still owed: what, as stored (compared when it is cleared), and its failed tries */
export interface Owed<T> {
  value: T;
  raw: string;
  tries: number;
}

/** the change card, or the approval request's */
export type CardSlot = "card" | "request";

const SLOT_COLUMNS: Record<
  CardSlot,
  { owed: string; at: string; tries: string; lease: string; leaseUntil: string }
> = {
  card: {
    owed: "card_owed",
    at: "card_owed_at",
    tries: "card_owed_tries",
    lease: "card_lease_token",
    leaseUntil: "card_lease_until",
  },
  request: {
    owed: "request_owed",
    at: "request_owed_at",
    tries: "request_owed_tries",
    lease: "request_lease_token",
    leaseUntil: "request_lease_until",
  },
};

/** an owed card taken to send: the row as taken, and the token its sender's writes carry */
export interface TakenCard {
  record: ChangeRecord;
  lease: string;
}

/** `AND <column> = ?` when the write is a lease holder's, nothing otherwise */
function heldBy(column: string, lease: string | undefined): { sql: string; params: SqlValue[] } {
  return lease === undefined
    ? { sql: "", params: [] }
    : { sql: ` AND ${column} = ?`, params: [lease] };
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
  heartbeat_at: number | null;
  unconfirmed_at?: number | null;
  card_owed: string | null;
  card_owed_tries: number | null;
  request_owed: string | null;
  request_owed_tries: number | null;
}

function owed<T>(raw: string | null | undefined, tries: number | null | undefined) {
  if (raw === null || raw === undefined) return undefined;
  return { value: JSON.parse(raw) as T, raw, tries: Number(tries ?? 0) };
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
    heartbeatAt: optionalNumber(row.heartbeat_at ?? null),
    unconfirmedAt: optionalNumber(row.unconfirmed_at ?? null),
    cardOwed: owed<OwedCard>(row.card_owed, row.card_owed_tries),
    requestOwed: owed<OwedRequest>(row.request_owed, row.request_owed_tries),
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

/** PostgreSQL's own clock, epoch ms: the time of the statement's run, not of its transaction */
const POSTGRES_NOW_MS = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)";

/** where a test's clock standing in for the database's is kept on the store (seen through proxies) */
const STAND_IN = Symbol("database clock stand-in");

/**
 * For tests that move time by hand on PostgreSQL: `clock` stands in for the database's own
 * clock in the heartbeats and the take-over of `db` (production never calls it).
 */
export function standInDatabaseClock(db: SqlExecutor, clock: Clock): void {
  (db as { [STAND_IN]?: Clock })[STAND_IN] = clock;
}

export class ChangeStore {
  constructor(
    private readonly db: SqlExecutor,
    private readonly clock: Clock,
  ) {}

  /**
   * "Now" for a claim's heartbeat and its take-over (issue 37 item 4), as SQL: the database's
   * clock on PostgreSQL, so a sender and a lease holder on replicas whose clocks disagree judge a
   * heartbeat's age alike; on SQLite, one process is both (one replica), so its clock is the
   * database's.
   */
  #now(): { sql: string; params: SqlValue[] } {
    const standIn = (this.db as { [STAND_IN]?: Clock })[STAND_IN];
    // typed, so PostgreSQL takes the parameter as a number wherever it stands
    const given = "CAST(? AS BIGINT)";
    if (standIn) return { sql: given, params: [standIn.now()] };
    const dialect = (this.db as { dialect?: string }).dialect;
    if (dialect === "postgres") return { sql: POSTGRES_NOW_MS, params: [] };
    return { sql: given, params: [this.clock.now()] };
  }

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
    const clockNow = this.#now();
    const { plan } = input;
    const inserted = await this.db.get<ChangeRow>(
      `INSERT INTO changes (request_key, verb, cluster_uid, cluster_name, project_uid, plan,
         requester, channel, status, expires_at, created_at, updated_at, heartbeat_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
         CASE WHEN ? = 'executing' THEN ${clockNow.sql} END)
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
        // claimed here: the caller sends it, and its heartbeat starts now (the database's clock)
        input.status,
        ...clockNow.params,
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
    const to = decision === "approve" ? "executing" : "rejected";
    assertMove("awaiting_approval", to);
    const now = this.clock.now();
    const clockNow = this.#now();
    const row = await this.db.get<ChangeRow>(
      `UPDATE changes SET status = ?, approver = ?, updated_at = ?,
         heartbeat_at = CASE WHEN ? = 'executing' THEN ${clockNow.sql} END
       WHERE id = ? AND status = 'awaiting_approval' AND expires_at > ? RETURNING *`,
      // approved: claimed by this approval, whose sender's heartbeat starts now
      [to, approver, now, to, ...clockNow.params, id, now],
    );
    return row ? toRecord(row) : undefined;
  }

  /** requests whose time ran out while awaiting approval: marked expired, returned once */
  async expireDue(): Promise<ChangeRecord[]> {
    assertMove("awaiting_approval", "expired");
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

  /**
   * moves `from` → `to` (and sets the fields given); undefined when the row was not at `from`.
   * Throws on a move CHANGE_STATES does not allow (src/model/change.ts).
   */
  async move(
    id: number,
    from: ChangeStatus,
    to: ChangeStatus,
    fields: { reason?: string; paletteRef?: string; card?: OwedCard } = {},
  ): Promise<ChangeRecord | undefined> {
    assertMove(from, to);
    const now = this.clock.now();
    // the not-applied window's start, by the database's clock as the heartbeats (see #now)
    const clockNow = this.#now();
    const ended = to === "done" || to === "failed" ? now : null;
    const accepted = to === "accepted" ? now : null;
    // the card the move owes the person, in the same statement: a move is never without it
    const card = fields.card ? JSON.stringify(fields.card) : null;
    const row = await this.db.get<ChangeRow>(
      `UPDATE changes SET status = ?, reason = COALESCE(?, reason),
         palette_ref = COALESCE(?, palette_ref),
         accepted_at = COALESCE(?, accepted_at), ended_at = COALESCE(?, ended_at), updated_at = ?,
         unconfirmed_at = CASE WHEN ? = 'unconfirmed' THEN ${clockNow.sql} ELSE unconfirmed_at END,
         card_owed = COALESCE(?, card_owed),
         card_owed_at = CASE WHEN CAST(? AS TEXT) IS NULL THEN card_owed_at
           WHEN card_owed_at IS NOT NULL AND card_owed_at > ? THEN card_owed_at ELSE ? END
       WHERE id = ? AND status = ? RETURNING *`,
      [
        to,
        fields.reason ?? null,
        fields.paletteRef ?? null,
        accepted,
        ended,
        now,
        to,
        ...clockNow.params,
        card,
        card,
        now,
        now,
        id,
        from,
      ],
    );
    return row ? toRecord(row) : undefined;
  }

  /**
   * What the person must see next on this card, kept until Slack takes it. Due now, unless a
   * try is under way or Slack asked to wait (Retry-After): then at that time, with this content.
   */
  async owe(slot: CardSlot, id: number, value: OwedCard | OwedRequest): Promise<void> {
    const c = SLOT_COLUMNS[slot];
    const now = this.clock.now();
    await this.db.run(
      `UPDATE changes SET ${c.owed} = ?,
         ${c.at} = CASE WHEN ${c.at} IS NOT NULL AND ${c.at} > ? THEN ${c.at} ELSE ? END
       WHERE id = ?`,
      [JSON.stringify(value), now, now, id],
    );
  }

  /**
   * Takes an owed card to send, if it is due and nobody holds it: for `leaseMs` by the
   * database's clock (#now) no one else sends it (two replicas, or a follower round and the
   * submit's own post, never post it twice), and the sender's writes below carry the returned
   * token, applied only while it is still the row's (issue 37 item 2). The due time (Retry-After,
   * a back-off) stays by the process's clock, which set it.
   */
  async takeOwed(slot: CardSlot, id: number, leaseMs: number): Promise<TakenCard | undefined> {
    const c = SLOT_COLUMNS[slot];
    const now = this.#now();
    const lease = randomBytes(9).toString("base64url");
    const row = await this.db.get<ChangeRow>(
      `UPDATE changes SET ${c.lease} = ?, ${c.leaseUntil} = ${now.sql} + CAST(? AS BIGINT)
       WHERE id = ? AND ${c.owed} IS NOT NULL AND ${c.at} <= ?
         AND (${c.leaseUntil} IS NULL OR ${c.leaseUntil} <= ${now.sql}) RETURNING *`,
      [lease, ...now.params, leaseMs, id, this.clock.now(), ...now.params],
    );
    return row ? { record: toRecord(row), lease } : undefined;
  }

  /**
   * Slack took `raw`: nothing is owed, unless something newer was owed meanwhile (then it is due
   * now); the lease ends. True when nothing is owed any more, or when `lease` is no longer the
   * row's (the card is another sender's now: this one has nothing more to send).
   */
  async owedShown(slot: CardSlot, id: number, raw: string, lease?: string): Promise<boolean> {
    const c = SLOT_COLUMNS[slot];
    const held = heldBy(c.lease, lease);
    const row = await this.db.get<{ owed: string | null }>(
      `UPDATE changes SET ${c.at} = CASE WHEN ${c.owed} = ? THEN NULL ELSE CAST(? AS BIGINT) END,
         ${c.tries} = 0, ${c.owed} = CASE WHEN ${c.owed} = ? THEN NULL ELSE ${c.owed} END,
         ${c.lease} = NULL, ${c.leaseUntil} = NULL
       WHERE id = ?${held.sql} RETURNING ${c.owed} AS owed`,
      [raw, this.clock.now(), raw, id, ...held.params],
    );
    return !row || row.owed === null;
  }

  /**
   * Slack refused it: tried again at `at` (Retry-After, a back-off), one more failed try; with
   * `failedTry: false` only later (an earlier try may still land, nothing failed). The lease
   * ends; with `lease`, only while it is still the row's.
   */
  async owedLater(
    slot: CardSlot,
    id: number,
    at: number,
    options: { failedTry?: boolean; lease?: string } = {},
  ): Promise<void> {
    const c = SLOT_COLUMNS[slot];
    const failed = options.failedTry ?? true;
    const held = heldBy(c.lease, options.lease);
    await this.db.run(
      `UPDATE changes SET ${c.at} = ?, ${c.tries} = ${c.tries} + ?,
         ${c.lease} = NULL, ${c.leaseUntil} = NULL
       WHERE id = ? AND ${c.owed} IS NOT NULL${held.sql}`,
      [at, failed ? 1 : 0, id, ...held.params],
    );
  }

  /** the rows with a card due by `now` that nobody holds (oldest first, `limit` at a time) */
  async owedDue(slot: CardSlot, now: number, limit = 100): Promise<number[]> {
    const c = SLOT_COLUMNS[slot];
    const dbNow = this.#now();
    const rows = await this.db.all<{ id: number }>(
      `SELECT id FROM changes WHERE ${c.at} <= ? AND ${c.owed} IS NOT NULL
         AND (${c.leaseUntil} IS NULL OR ${c.leaseUntil} <= ${dbNow.sql})
       ORDER BY ${c.at}, id LIMIT ?`,
      [now, ...dbNow.params, limit],
    );
    return rows.map((row) => Number(row.id));
  }

  /**
   * Where the change card is. With `lease`, only while the sender holds the card; with `fresh`
   * (a card just posted, not one replacing a card gone), only while the row has none: a second
   * fresh card never replaces the first, which would stay "executing…" for good. True when
   * written.
   */
  async setCard(
    id: number,
    channel: string,
    ts: string,
    options: { lease?: string; fresh?: boolean } = {},
  ): Promise<boolean> {
    const held = heldBy(SLOT_COLUMNS.card.lease, options.lease);
    const result = await this.db.run(
      `UPDATE changes SET card_channel = ?, card_ts = ?, updated_at = ?
       WHERE id = ?${held.sql}${options.fresh ? " AND card_ts IS NULL" : ""}`,
      [channel, ts, this.clock.now(), id, ...held.params],
    );
    return result.changes > 0;
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
   * How long change `id` has been unconfirmed, by the database's clock (its unconfirmed_at was
   * stamped by it): a follower whose clock runs ahead of the replica that moved it would end it
   * "not applied" early. Undefined when it is not unconfirmed.
   */
  async unconfirmedForMs(id: number): Promise<number | undefined> {
    const clockNow = this.#now();
    const row = await this.db.get<{ waited: number | string }>(
      `SELECT ${clockNow.sql} - COALESCE(unconfirmed_at, updated_at) AS waited
         FROM changes WHERE id = ? AND status = 'unconfirmed'`,
      [...clockNow.params, id],
    );
    return row ? Number(row.waited) : undefined;
  }

  /**
   * The sender's heartbeat on its claim, and its check just before the write: true while the
   * row is still `executing` (its own), false once the lease holder took it over. One statement,
   * so a takeover and a heartbeat never both land.
   */
  async beat(id: number): Promise<boolean> {
    const clockNow = this.#now();
    const row = await this.db.get<{ id: number }>(
      `UPDATE changes SET heartbeat_at = ${clockNow.sql} WHERE id = ? AND status = 'executing' RETURNING id`,
      [...clockNow.params, id],
    );
    return row !== undefined;
  }

  /**
   * claimed changes whose sender's heartbeat stopped more than `stuckMs` ago by the database's
   * clock (rows from before the heartbeat: not moved since): the replica sending them is gone, or
   * stopped between Palette's answer and the store. Reconciled by reading, never sent again.
   */
  async stuckExecuting(stuckMs: number): Promise<ChangeRecord[]> {
    const clockNow = this.#now();
    const rows = await this.db.all<ChangeRow>(
      `SELECT * FROM changes WHERE status = 'executing'
         AND COALESCE(heartbeat_at, updated_at) < ${clockNow.sql} - ? ORDER BY id`,
      [...clockNow.params, stuckMs],
    );
    return rows.map(toRecord);
  }

  /**
   * A stuck claim taken over as `unconfirmed`, only if its heartbeat is still more than
   * `stuckMs` old by the database's clock when the statement runs (a sender that beat since keeps
   * it); undefined otherwise.
   */
  async takeOver(id: number, stuckMs: number, reason: string): Promise<ChangeRecord | undefined> {
    assertMove("executing", "unconfirmed");
    const clockNow = this.#now();
    const row = await this.db.get<ChangeRow>(
      `UPDATE changes SET status = 'unconfirmed', reason = ?, updated_at = ?,
         unconfirmed_at = ${clockNow.sql}
       WHERE id = ? AND status = 'executing'
         AND COALESCE(heartbeat_at, updated_at) < ${clockNow.sql} - ?
       RETURNING *`,
      [reason, this.clock.now(), ...clockNow.params, id, ...clockNow.params, stuckMs],
    );
    return row ? toRecord(row) : undefined;
  }

  async all(): Promise<ChangeRecord[]> {
    const rows = await this.db.all<ChangeRow>("SELECT * FROM changes ORDER BY id");
    return rows.map(toRecord);
  }
}
