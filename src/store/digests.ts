import type { DigestCadence, DigestSchedule } from "../model/channel-digest.ts";
import type { Db } from "./db.ts";

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
  constructor(private readonly db: Db) {}

  get(channel: string): DigestSchedule | undefined {
    const row = this.db
      .prepare("SELECT * FROM notify_digest_schedules WHERE channel = ?")
      .get(channel) as ScheduleRow | undefined;
    return row ? toSchedule(row) : undefined;
  }

  all(): DigestSchedule[] {
    return (
      this.db
        .prepare("SELECT * FROM notify_digest_schedules ORDER BY channel")
        .all() as ScheduleRow[]
    ).map(toSchedule);
  }

  /** Sets the channel's schedule; returns the one it replaced. */
  set(schedule: DigestSchedule): DigestSchedule | undefined {
    return this.db.transaction(() => {
      const before = this.get(schedule.channel);
      this.db
        .prepare(
          `INSERT OR REPLACE INTO notify_digest_schedules
             (channel, cadence, weekday, time, time_zone, set_by, set_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          schedule.channel,
          schedule.cadence,
          schedule.cadence === "weekly" ? (schedule.weekday ?? null) : null,
          `${two(schedule.hour)}:${two(schedule.minute)}`,
          schedule.timeZone,
          schedule.setBy,
          schedule.setAt,
        );
      return before;
    })();
  }

  /** Turns the channel's digest off; returns the schedule it had. */
  remove(channel: string): DigestSchedule | undefined {
    return this.db.transaction(() => {
      const before = this.get(channel);
      this.db.prepare("DELETE FROM notify_digest_schedules WHERE channel = ?").run(channel);
      return before;
    })();
  }

  /** The channel's latest digest: the occurrence it was for and when it was built. */
  lastRun(channel: string): { occurrence: string; builtAt: string } | undefined {
    return this.db
      .prepare(
        `SELECT occurrence, built_at AS builtAt FROM notify_digest_runs
         WHERE channel = ? ORDER BY occurrence DESC LIMIT 1`,
      )
      .get(channel) as { occurrence: string; builtAt: string } | undefined;
  }

  /** true when this call took the occurrence; false when it was taken already. */
  claimRun(channel: string, occurrence: string, builtAt: string): boolean {
    return (
      this.db
        .prepare(
          "INSERT OR IGNORE INTO notify_digest_runs (channel, occurrence, built_at) VALUES (?, ?, ?)",
        )
        .run(channel, occurrence, builtAt).changes === 1
    );
  }

  /** which outbox row carries the run's digest (none when there was nothing to post) */
  attachOutbox(channel: string, occurrence: string, outboxId: number): void {
    this.db
      .prepare("UPDATE notify_digest_runs SET outbox_id = ? WHERE channel = ? AND occurrence = ?")
      .run(outboxId, channel, occurrence);
  }

  /** Runs older than `before` (ISO), except each channel's latest: it is what "owed" is judged by. */
  pruneRuns(before: string): number {
    return this.db
      .prepare(
        `DELETE FROM notify_digest_runs WHERE occurrence < ? AND occurrence <
           (SELECT MAX(occurrence) FROM notify_digest_runs latest
            WHERE latest.channel = notify_digest_runs.channel)`,
      )
      .run(before).changes;
  }
}
