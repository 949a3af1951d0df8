import cron from "node-cron";
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import type { ChannelDigestPost, DigestMute, DigestSchedule } from "../../model/channel-digest.ts";
import { DigestStore } from "../../store/digests.ts";
import { OutboxStore } from "../../store/outbox.ts";
import type { SqlDb, SqlExecutor } from "../../store/sql.ts";
import { channelDigestText } from "../../views/channel-digest.ts";
import { composeChannelDigest, type FleetNow, readFleet } from "./channel-digest-source.ts";
import { cronOf, dueOccurrence } from "./digest-due.ts";

/** A timer that calls back at each time a cron expression names, in a time zone. */
export interface DigestTimer {
  stop(): void | Promise<void>;
}

export interface DigestScheduler {
  schedule(expression: string, timeZone: string, tick: () => void | Promise<void>): DigestTimer;
}

/** node-cron with its time-zone option: a 09:00 Europe/Berlin schedule ticks at 09:00 there. */
export const nodeCronScheduler: DigestScheduler = {
  schedule(expression, timeZone, tick) {
    const task = cron.schedule(expression, () => tick(), { timezone: timeZone, noOverlap: true });
    return {
      async stop() {
        await task.stop();
        await task.destroy();
      },
    };
  },
};

export interface DigestJobOptions {
  db: SqlDb;
  clock: Clock;
  logger: Logger;
  /** default node-cron; tests pass one whose ticks they fire */
  scheduler?: DigestScheduler;
  /** after digests were queued in the outbox (wakes the sender) */
  onCommitted?: (rows: number) => void;
  /** a channel's active mutes, for the digest to list; absent: the digest has no mutes part */
  mutesFor?: (channel: string, now: number) => readonly DigestMute[] | undefined;
  /**
   * Run first inside each run's transaction (claim and outbox row); throws (FencedOut) when this
   * replica no longer leads, so a deposed leader claims no occurrence (src/store/lease.ts)
   */
  fence?: (tx: SqlExecutor) => Promise<void>;
}

export interface DigestJob {
  /**
   * arms the timers and posts any occurrence missed while the bot was down; resolves when that
   * catch-up is done
   */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** re-reads the schedules and re-arms the timers (a command changed one) */
  sync(): Promise<void>;
  /** queues every digest owed now; returns how many. What every tick and the start run. */
  runDue(): Promise<number>;
}

const iso = (ms: number) => new Date(ms).toISOString();
/** runs kept for the record; each channel's latest is kept whatever its age */
const RUN_RETENTION_MS = 40 * 24 * 3600_000;

/**
 * Posts each channel's digest on its schedule. node-cron ticks, one timer per schedule in its own
 * time zone, only prompt a look: whether a digest is owed is `dueOccurrence` of the store and the
 * injected clock, and the run row claimed in the same transaction as the outbox row makes each
 * occurrence go out at most once, across ticks, restarts and replicas. The outbox then delivers
 * it with the pipeline's guarantees (ordered, paced, retried, held while the channel is closed).
 */
export function createDigestJob(options: DigestJobOptions): DigestJob {
  const { db, clock, logger } = options;
  const scheduler = options.scheduler ?? nodeCronScheduler;
  const store = new DigestStore(db);
  const timers = new Map<string, { key: string; timer: DigestTimer }>();
  let running = false;

  const stopTimer = async (timer: DigestTimer): Promise<void> => {
    try {
      await timer.stop();
    } catch (error) {
      logger.warn({ err: String(error) }, "digest timer did not stop cleanly");
    }
  };
  const pending = new Set<Promise<void>>();
  const disarm = (channel: string) => {
    const armed = timers.get(channel);
    if (!armed) return;
    timers.delete(channel);
    const stopping = stopTimer(armed.timer).finally(() => pending.delete(stopping));
    pending.add(stopping);
  };

  /** One channel: owed now? Then build it, claim the occurrence and queue it, all or nothing. */
  function runOne(
    schedule: DigestSchedule,
    now: number,
    fleet: (tx: SqlExecutor) => Promise<FleetNow>,
  ): Promise<"queued" | "skipped" | undefined> {
    return db.transaction(async (tx) => {
      await options.fence?.(tx);
      const runs = new DigestStore(tx);
      const last = await runs.lastRun(schedule.channel);
      const due = dueOccurrence(schedule, last ? Date.parse(last.occurrence) : undefined, now);
      if (due === undefined) return undefined;
      // built before the claim: "since the last digest" means the one before this
      const digest = await composeChannelDigest(tx, {
        channel: schedule.channel,
        schedule,
        now,
        preview: false,
        mutes: options.mutesFor?.(schedule.channel, now),
        fleet: await fleet(tx),
      });
      const occurrence = iso(due);
      if (!(await runs.claimRun(schedule.channel, occurrence, iso(now)))) return undefined;
      if (!digest) return "skipped";
      const payload: ChannelDigestPost = { text: channelDigestText(digest), channelDigest: digest };
      const id = await new OutboxStore(tx).add(
        { channel: schedule.channel, kind: "post", payload },
        iso(now),
      );
      await runs.attachOutbox(schedule.channel, occurrence, id);
      return "queued";
    });
  }

  async function runDue(): Promise<number> {
    const now = clock.now();
    let queued = 0;
    // read once, and only when some channel is owed a digest: a whole fleet is not free
    let fleet: FleetNow | undefined;
    const fleetNow = async (tx: SqlExecutor) => {
      fleet ??= await readFleet(tx);
      return fleet;
    };
    for (const schedule of await store.all()) {
      try {
        const outcome = await runOne(schedule, now, fleetNow);
        if (outcome === "queued") {
          queued += 1;
          logger.info(
            { channel: schedule.channel, cadence: schedule.cadence, timeZone: schedule.timeZone },
            "channel digest queued",
          );
        } else if (outcome === "skipped") {
          logger.info(
            { channel: schedule.channel },
            "channel digest skipped: the channel has no active subscription",
          );
        }
      } catch (error) {
        // one channel's failure (the store busy) leaves its occurrence owed for the next look
        logger.error({ err: String(error), channel: schedule.channel }, "channel digest failed");
      }
    }
    await store.pruneRuns(iso(now - RUN_RETENTION_MS));
    if (queued > 0) options.onCommitted?.(queued);
    return queued;
  }

  /** one sync at a time: two reading the schedules at once could arm what the later one dropped */
  let syncing: Promise<void> = Promise.resolve();
  function sync(): Promise<void> {
    syncing = syncing.then(syncNow).catch((error: unknown) => {
      // the timers stay as they were; the next tick or change syncs again
      logger.error({ err: String(error) }, "digest schedules not re-read");
    });
    return syncing;
  }

  async function syncNow(): Promise<void> {
    if (!running) return;
    const schedules = await store.all();
    if (!running) return;
    const wanted = new Map(schedules.map((s) => [s.channel, `${cronOf(s)}|${s.timeZone}`]));
    for (const [channel, armed] of timers) {
      if (wanted.get(channel) !== armed.key) disarm(channel);
    }
    for (const schedule of schedules) {
      if (timers.has(schedule.channel)) continue;
      const timer = scheduler.schedule(cronOf(schedule), schedule.timeZone, tick);
      timers.set(schedule.channel, { key: wanted.get(schedule.channel)!, timer });
    }
  }

  /** A tick's look; stop waits for the ones still running. */
  function tick(): Promise<void> {
    if (!running) return Promise.resolve();
    const look = (async () => {
      try {
        await sync();
        await runDue();
      } catch (error) {
        logger.error({ err: String(error) }, "digest tick failed");
      }
    })();
    const tracked = look.finally(() => pending.delete(tracked));
    pending.add(tracked);
    return tracked;
  }

  return {
    async start() {
      if (running) return;
      running = true;
      // the catch-up: an occurrence that passed while the bot was down is owed now, once
      await tick();
    },
    async stop() {
      running = false;
      await syncing;
      for (const channel of [...timers.keys()]) disarm(channel);
      await Promise.all([...pending]);
    },
    sync,
    runDue,
  };
}
