import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { adoptCard } from "../notify/adopt-launch-card.ts";
import type { PaletteApi } from "../palette/api.ts";
import { PaletteError } from "../palette/errors.ts";
import { inBackground } from "../palette/priority.ts";
import type { Db } from "../store/db.ts";
import { type LaunchRecord, LaunchStore } from "../store/launches.ts";
import type { KnownBlock } from "../views/block-kit.ts";
import { isSettled, launchCard, launchPhase } from "../views/launch-card.ts";
import { code, escapeMrkdwn, mention } from "../views/mrkdwn.ts";

/**
 * Follows launched clusters until they are Running or failed: posts the launch card where the
 * launch began, edits it in place (`chat.update`) on every state change, and mentions the
 * requester in its thread when it settles (an edit alone notifies nobody). The watched
 * launches live in SQLite, so a restart picks them up again.
 */

export interface CardMessage {
  text: string;
  blocks: KnownBlock[];
}

/** Where cards go: Slack (chat.postMessage/update) or the console. */
export interface CardSink {
  /**
   * posts a new message, returns its ts and the channel it really went to (`fallbackChannel`,
   * e.g. the requester's DM, when the bot cannot post in `channel`)
   */
  post(
    channel: string,
    message: CardMessage,
    fallbackChannel?: string,
  ): Promise<{ channel: string; ts: string }>;
  update(channel: string, ts: string, message: CardMessage): Promise<void>;
  reply(channel: string, threadTs: string, text: string): Promise<void>;
}

/** Runs `task` on some schedule; returns how to stop it (node-cron, setInterval, a test). */
export type Scheduler = (task: () => Promise<void>) => { stop(): void };

export function intervalScheduler(everyMs: number): Scheduler {
  return (task) => {
    const timer = setInterval(() => void task(), everyMs);
    timer.unref();
    return { stop: () => clearInterval(timer) };
  };
}

export interface LaunchTrackerDeps {
  db: Db;
  palette: PaletteApi;
  sink: CardSink;
  clock: Clock;
  logger: Logger;
  consoleUrl: string;
  /** give up following after this long; default 3 hours */
  maxWatchMs?: number;
}

export class LaunchTracker {
  private readonly store: LaunchStore;
  private running: Promise<number> | undefined;
  private stopper: { stop(): void } | undefined;

  constructor(private readonly deps: LaunchTrackerDeps) {
    this.store = new LaunchStore(deps.db, deps.clock);
  }

  private card(record: LaunchRecord, state: string | undefined, note?: string): CardMessage {
    return launchCard({
      name: record.name,
      provider: record.provider,
      projectUid: record.projectUid,
      requester: record.requester,
      clusterUid: record.clusterUid,
      state,
      consoleUrl: this.deps.consoleUrl,
      note,
    });
  }

  /** Posts the card of a just-created launch (state Pending) and starts following it. */
  async follow(launchId: number): Promise<LaunchRecord | undefined> {
    const record = this.store.get(launchId);
    if (record?.status !== "created") return record;
    if (record.cardTs) return record;
    try {
      const posted = await this.deps.sink.post(
        record.channel,
        this.card(record, record.lastState),
        record.requester,
      );
      this.store.setCard(record.id, posted.channel, posted.ts);
      // one card per (channel, cluster): the notifier threads its lines under this card
      // instead of posting a second one when the channel is also subscribed
      if (record.clusterUid) {
        adoptCard(
          this.deps.db,
          { channel: posted.channel, clusterUid: record.clusterUid, ts: posted.ts },
          this.deps.clock,
        );
      }
    } catch (error) {
      // the watch still runs; the next tick tries to post again
      this.deps.logger.warn({ err: String(error), launchId }, "could not post the launch card");
    }
    return this.store.get(launchId);
  }

  /** One look at every open launch; returns how many cards changed. Never overlaps itself. */
  tick(): Promise<number> {
    // following launches is routine: a user's command goes before it on Palette's budget
    this.running ??= inBackground(() => this.check()).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  start(schedule: Scheduler): void {
    this.stopper?.stop();
    this.stopper = schedule(async () => {
      await this.tick().catch((error: unknown) =>
        this.deps.logger.error({ err: String(error) }, "launch watch failed"),
      );
    });
  }

  /**
   * Stops the schedule and waits for a check in progress: it writes to the store, so the
   * caller must not close the database before this resolves.
   */
  async stop(): Promise<void> {
    this.stopper?.stop();
    this.stopper = undefined;
    while (this.running) await this.running.catch(() => undefined);
  }

  private async check(): Promise<number> {
    let changed = 0;
    const maxWatchMs = this.deps.maxWatchMs ?? 3 * 3600_000;
    for (const record of this.store.open()) {
      if (!record.clusterUid) continue;
      if (!record.cardTs) {
        await this.follow(record.id);
        continue;
      }
      let state: string | undefined;
      let note: string | undefined;
      try {
        state =
          (await this.deps.palette.getClusterState(record.clusterUid, {
            projectUid: record.projectUid || undefined,
          })) ?? record.lastState;
      } catch (error) {
        if (error instanceof PaletteError && error.kind === "not_found") {
          state = "Deleted";
          note = "The cluster is no longer in Palette.";
        } else {
          this.deps.logger.warn(
            { err: String(error), clusterUid: record.clusterUid },
            "launch watch: state not read; will retry",
          );
          continue;
        }
      }
      const timedOut = !isSettled(state) && this.deps.clock.now() - record.createdAt > maxWatchMs;
      if (timedOut) note = "Still not Running after a long wait; stopped following. Check Palette.";
      if (state === record.lastState && !timedOut && !note) continue;
      const done = isSettled(state) || timedOut;
      // a card that could not be edited keeps its old state, so the next tick tries again
      if (!(await this.show(record, state, note, done))) continue;
      this.store.setState(record.id, state ?? "Pending", done);
      changed++;
    }
    return changed;
  }

  private async show(
    record: LaunchRecord,
    state: string | undefined,
    note: string | undefined,
    done: boolean,
  ): Promise<boolean> {
    const { sink, logger } = this.deps;
    try {
      await sink.update(record.channel, record.cardTs!, this.card(record, state, note));
      if (done) {
        const phase = launchPhase(state);
        const text =
          phase === "running"
            ? `${mention(record.requester)} your cluster ${code(record.name)} is Running.`
            : `${mention(record.requester)} your cluster ${code(record.name)} did not come up (${escapeMrkdwn(state ?? "unknown")}).`;
        await sink.reply(record.channel, record.cardTs!, text).catch((error: unknown) => {
          logger.warn(
            { err: String(error), launchId: record.id },
            "could not mention the requester",
          );
        });
      }
      return true;
    } catch (error) {
      logger.warn({ err: String(error), launchId: record.id }, "could not update the launch card");
      return false;
    }
  }
}
