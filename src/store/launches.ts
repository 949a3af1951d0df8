import type { Clock } from "../clock.ts";
import type { Db } from "./db.ts";

/** One launch as stored in `launches` (src/store/migrations/003_launch.ts). */
export interface LaunchRecord {
  id: number;
  submissionKey: string;
  projectUid: string;
  provider: string;
  name: string;
  requester: string;
  channel: string;
  status: "submitting" | "created";
  clusterUid?: string;
  cardTs?: string;
  lastState?: string;
  done: boolean;
  createdAt: number;
  updatedAt: number;
}

interface Row {
  id: number;
  submission_key: string;
  project_uid: string;
  provider: string;
  name: string;
  requester: string;
  channel: string;
  status: "submitting" | "created";
  cluster_uid: string | null;
  card_ts: string | null;
  last_state: string | null;
  done: number;
  created_at: number;
  updated_at: number;
}

function toRecord(row: Row): LaunchRecord {
  return {
    id: row.id,
    submissionKey: row.submission_key,
    projectUid: row.project_uid,
    provider: row.provider,
    name: row.name,
    requester: row.requester,
    channel: row.channel,
    status: row.status,
    clusterUid: row.cluster_uid ?? undefined,
    cardTs: row.card_ts ?? undefined,
    lastState: row.last_state ?? undefined,
    done: row.done === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type Reservation =
  | { kind: "reserved"; record: LaunchRecord }
  | { kind: "same_submission"; record: LaunchRecord }
  | { kind: "name_in_flight"; record: LaunchRecord };

/** What a submit knows before Palette is called. */
export type ReserveInput = Pick<
  LaunchRecord,
  "submissionKey" | "projectUid" | "provider" | "name" | "requester" | "channel"
>;

/** The launches table; every write is one statement or one transaction. */
export class LaunchStore {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /**
   * Claims a submission before Palette is called. SQLite serialises writers, so of two
   * concurrent submits of the same view (or the same name) exactly one gets `reserved`.
   */
  reserve(input: ReserveInput): Reservation {
    return this.db.transaction((): Reservation => {
      const same = this.db
        .prepare("SELECT * FROM launches WHERE submission_key = ?")
        .get(input.submissionKey) as Row | undefined;
      if (same) return { kind: "same_submission", record: toRecord(same) };
      const nameKey = `${input.projectUid}/${input.name}`;
      const inFlight = this.db.prepare("SELECT * FROM launches WHERE name_key = ?").get(nameKey) as
        | Row
        | undefined;
      if (inFlight) return { kind: "name_in_flight", record: toRecord(inFlight) };
      const now = this.clock.now();
      const result = this.db
        .prepare(
          `INSERT INTO launches (submission_key, name_key, project_uid, provider, name, requester, channel, status, created_at, updated_at)
           VALUES (@submissionKey, @nameKey, @projectUid, @provider, @name, @requester, @channel, 'submitting', @now, @now)`,
        )
        .run({ ...input, nameKey, now });
      return { kind: "reserved", record: this.get(Number(result.lastInsertRowid))! };
    })();
  }

  /** Palette refused or the call failed: forget the claim so a corrected resubmit can go. */
  release(id: number): void {
    this.db.prepare("DELETE FROM launches WHERE id = ? AND status = 'submitting'").run(id);
  }

  /**
   * Palette created the cluster: the reservation becomes a launch to follow. False when there
   * was no reservation left to turn (it was released meanwhile): the caller must not claim it.
   */
  created(id: number, clusterUid: string): boolean {
    const result = this.db
      .prepare(
        "UPDATE launches SET status = 'created', cluster_uid = ?, last_state = 'Pending', updated_at = ? WHERE id = ? AND status = 'submitting'",
      )
      .run(clusterUid, this.clock.now(), id);
    return result.changes > 0;
  }

  setCard(id: number, channel: string, ts: string): void {
    this.db
      .prepare("UPDATE launches SET channel = ?, card_ts = ?, updated_at = ? WHERE id = ?")
      .run(channel, ts, this.clock.now(), id);
  }

  /** Records the state last shown; `done` also frees the name for a later launch. */
  setState(id: number, state: string, done: boolean): void {
    this.db
      .prepare(
        `UPDATE launches SET last_state = ?, done = ?, updated_at = ?,
           name_key = CASE WHEN ? = 1 THEN NULL ELSE name_key END
         WHERE id = ?`,
      )
      .run(state, done ? 1 : 0, this.clock.now(), done ? 1 : 0, id);
  }

  get(id: number): LaunchRecord | undefined {
    const row = this.db.prepare("SELECT * FROM launches WHERE id = ?").get(id) as Row | undefined;
    return row ? toRecord(row) : undefined;
  }

  /** created launches still being followed */
  open(): LaunchRecord[] {
    return (
      this.db
        .prepare("SELECT * FROM launches WHERE status = 'created' AND done = 0 ORDER BY id")
        .all() as Row[]
    ).map(toRecord);
  }

  /** reservations whose create is not settled yet, oldest first */
  submitting(): LaunchRecord[] {
    return (
      this.db
        .prepare("SELECT * FROM launches WHERE status = 'submitting' ORDER BY id")
        .all() as Row[]
    ).map(toRecord);
  }

  /** the highest launch id so far (0 for none): ids only grow, so later reservations are above it */
  lastId(): number {
    const row = this.db.prepare("SELECT MAX(id) AS id FROM launches").get() as {
      id: number | null;
    };
    return row.id ?? 0;
  }

  all(): LaunchRecord[] {
    return (this.db.prepare("SELECT * FROM launches ORDER BY id").all() as Row[]).map(toRecord);
  }
}
