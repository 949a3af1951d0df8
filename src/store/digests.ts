import type { DigestCadence, DigestSchedule } from "../model/channel-digest.ts";
import type { SqlExecutor } from "./sql.ts";

interface ScheduleRow {
  channel: string;
  cadence: string;
  weekday: number | null;
  time: string;
  time_zone: string;
  set_by: string;
  set_at: string;
}

const toSchedule = (row: ScheduleRow): DigestSchedule => {
  const [hour, minute] = row.time.split(":").map(Number);
  return {
    channel: row.channel,
    cadence: row.cadence as DigestCadence,
    ...(row.weekday === null ? {} : { weekday: row.weekday }),
    hour: hour ?? 0,
    minute: minute ?? 0,
    timeZone: row.time_zone,
    setBy: row.set_by,
    setAt: row.set_at,
  };
};

const two = (n: number) => String(n).padStart(2, "0");

/**
 * Channels' digest schedules (one each) and the digests that went out: a run row per
 * (channel, occurrence), claimed in the same transaction as the digest's outbox row, so an
 * occurrence is posted at most once however many ticks or restarts look at it.
 */
export class DigestStore {
  constructor(private readonly db: SqlExecutor) {}

  async get(channel: string): Promise<DigestSchedule | undefined> {
    const row = await this.db.get<ScheduleRow>(
      "SELECT * FROM notify_digest_schedules WHERE channel = ?",
      [channel],
    );
    return row ? toSchedule(row) : undefined;
  }

  async all(): Promise<DigestSchedule[]> {
    const rows = await this.db.all<ScheduleRow>(
      "SELECT * FROM notify_digest_schedules ORDER BY channel",
    );
    return rows.map(toSchedule);
  }

  /**
   * Sets the channel's schedule; returns the one it replaced. Run it inside a transaction when
   * what it returns must be exactly what it replaced.
   */
  async set(schedule: DigestSchedule): Promise<DigestSchedule | undefined> {
    const before = await this.get(schedule.channel);
    await this.db.run(
      `INSERT INTO notify_digest_schedules
         (channel, cadence, weekday, time, time_zone, set_by, set_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (channel) DO UPDATE SET cadence = excluded.cadence,
         weekday = excluded.weekday, time = excluded.time, time_zone = excluded.time_zone,
         set_by = excluded.set_by, set_at = excluded.set_at`,
      [
        schedule.channel,
        schedule.cadence,
        schedule.cadence === "weekly" ? (schedule.weekday ?? null) : null,
        `${two(schedule.hour)}:${two(schedule.minute)}`,
        schedule.timeZone,
        schedule.setBy,
        schedule.setAt,
      ],
    );
    return before;
  }

  /** Turns the channel's digest off; returns the schedule it had (see `set` on transactions). */
  async remove(channel: string): Promise<DigestSchedule | undefined> {
    const before = await this.get(channel);
    await this.db.run("DELETE FROM notify_digest_schedules WHERE channel = ?", [channel]);
    return before;
  }

  /** The channel's latest digest: the occurrence it was for and when it was built. */
  lastRun(channel: string): Promise<{ occurrence: string; builtAt: string } | undefined> {
    return this.db.get<{ occurrence: string; builtAt: string }>(
      `SELECT occurrence, built_at AS "builtAt" FROM notify_digest_runs
       WHERE channel = ? ORDER BY occurrence DESC LIMIT 1`,
      [channel],
    );
  }

  /** true when this call took the occurrence; false when it was taken already. */
  async claimRun(channel: string, occurrence: string, builtAt: string): Promise<boolean> {
    const result = await this.db.run(
      `INSERT INTO notify_digest_runs (channel, occurrence, built_at) VALUES (?, ?, ?)
       ON CONFLICT (channel, occurrence) DO NOTHING`,
      [channel, occurrence, builtAt],
    );
    return result.changes === 1;
  }

  /** which outbox row carries the run's digest (none when there was nothing to post) */
  async attachOutbox(channel: string, occurrence: string, outboxId: number): Promise<void> {
    await this.db.run(
      "UPDATE notify_digest_runs SET outbox_id = ? WHERE channel = ? AND occurrence = ?",
      [outboxId, channel, occurrence],
    );
  }

  /** Runs older than `before` (ISO), except each channel's latest: it is what "owed" is judged by. */
  async pruneRuns(before: string): Promise<number> {
    const result = await this.db.run(
      `DELETE FROM notify_digest_runs WHERE occurrence < ? AND occurrence <
         (SELECT MAX(occurrence) FROM notify_digest_runs latest
          WHERE latest.channel = notify_digest_runs.channel)`,
      [before],
    );
    return result.changes;
  }
}
