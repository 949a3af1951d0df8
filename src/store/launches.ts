import type { Clock } from "../clock.ts";
import type { SqlExecutor } from "./sql.ts";

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
  /** whom the create ran as in Palette (IDENTITY=linked); undefined: the service account */
  paletteUser?: string;
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
  palette_user?: string | null;
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
    ...(row.palette_user ? { paletteUser: row.palette_user } : {}),
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
    private readonly db: SqlExecutor,
    private readonly clock: Clock,
  ) {}

  /**
   * Claims a submission before Palette is called. The insert itself is the claim (both keys are
   * unique, and a conflict inserts nothing), so of two concurrent submits of the same view (or
   * the same name) exactly one gets `reserved`, in a transaction or not.
   */
  async reserve(input: ReserveInput): Promise<Reservation> {
    const nameKey = `${input.projectUid}/${input.name}`;
    const taken = async (): Promise<Reservation | undefined> => {
      const same = await this.db.get<Row>("SELECT * FROM launches WHERE submission_key = ?", [
        input.submissionKey,
      ]);
      if (same) return { kind: "same_submission", record: toRecord(same) };
      const inFlight = await this.db.get<Row>("SELECT * FROM launches WHERE name_key = ?", [
        nameKey,
      ]);
      if (inFlight) return { kind: "name_in_flight", record: toRecord(inFlight) };
      return undefined;
    };
    const before = await taken();
    if (before) return before;
    const now = this.clock.now();
    const inserted = await this.db.get<Row>(
      `INSERT INTO launches (submission_key, name_key, project_uid, provider, name, requester, channel, status, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'submitting', ?, ?)
       ON CONFLICT DO NOTHING RETURNING *`,
      [
        input.submissionKey,
        nameKey,
        input.projectUid,
        input.provider,
        input.name,
        input.requester,
        input.channel,
        now,
        now,
      ],
    );
    if (inserted) return { kind: "reserved", record: toRecord(inserted) };
    // another submit claimed a key between the look and the insert: say which
    const after = await taken();
    if (after) return after;
    throw new Error("launch reservation conflicted, but the conflicting launch is gone");
  }

  /** Palette refused or the call failed: forget the claim so a corrected resubmit can go. */
  async release(id: number): Promise<void> {
    await this.db.run("DELETE FROM launches WHERE id = ? AND status = 'submitting'", [id]);
  }

  /**
   * Palette created the cluster: the reservation becomes a launch to follow. False when there
   * was no reservation left to turn (it was released meanwhile): the caller must not claim it.
   */
  async created(id: number, clusterUid: string, paletteUser?: string): Promise<boolean> {
    const result = await this.db.run(
      "UPDATE launches SET status = 'created', cluster_uid = ?, last_state = 'Pending', palette_user = ?, updated_at = ? WHERE id = ? AND status = 'submitting'",
      [clusterUid, paletteUser ?? null, this.clock.now(), id],
    );
    return result.changes > 0;
  }

  async setCard(id: number, channel: string, ts: string): Promise<void> {
    await this.db.run("UPDATE launches SET channel = ?, card_ts = ?, updated_at = ? WHERE id = ?", [
      channel,
      ts,
      this.clock.now(),
      id,
    ]);
  }

  /** Records the state last shown; `done` also frees the name for a later launch. */
  async setState(id: number, state: string, done: boolean): Promise<void> {
    await this.db.run(
      `UPDATE launches SET last_state = ?, done = ?, updated_at = ?,
         name_key = CASE WHEN ? = 1 THEN NULL ELSE name_key END
       WHERE id = ?`,
      [state, done ? 1 : 0, this.clock.now(), done ? 1 : 0, id],
    );
  }

  async get(id: number): Promise<LaunchRecord | undefined> {
    const row = await this.db.get<Row>("SELECT * FROM launches WHERE id = ?", [id]);
    return row ? toRecord(row) : undefined;
  }

  /** created launches still being followed */
  async open(): Promise<LaunchRecord[]> {
    const rows = await this.db.all<Row>(
      "SELECT * FROM launches WHERE status = 'created' AND done = 0 ORDER BY id",
    );
    return rows.map(toRecord);
  }

  /** reservations whose create is not settled yet, oldest first */
  async submitting(): Promise<LaunchRecord[]> {
    const rows = await this.db.all<Row>(
      "SELECT * FROM launches WHERE status = 'submitting' ORDER BY id",
    );
    return rows.map(toRecord);
  }

  /** the highest launch id so far (0 for none): ids only grow, so later reservations are above it */
  async lastId(): Promise<number> {
    const row = await this.db.get<{ id: number | null }>("SELECT MAX(id) AS id FROM launches");
    return Number(row?.id ?? 0);
  }

  async all(): Promise<LaunchRecord[]> {
    return (await this.db.all<Row>("SELECT * FROM launches ORDER BY id")).map(toRecord);
  }
}
