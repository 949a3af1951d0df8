import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { adoptCard } from "../notify/delivery/adopt-launch-card.ts";
import type { PaletteApi } from "../palette/api.ts";
import { PaletteError } from "../palette/errors.ts";
import { inBackground } from "../palette/priority.ts";
import { type LaunchRecord, LaunchStore } from "../store/launches.ts";
import type { SqlDb, SqlExecutor } from "../store/sql.ts";
import type { KnownBlock } from "../views/block-kit.ts";
import { isSettled, launchCard, launchPhase } from "../views/launch-card.ts";
import { code, escapeMrkdwn, mention } from "../views/mrkdwn.ts";
import { CardAttempts, type CardRetryPolicy, DEFAULT_CARD_RETRY } from "./card-attempts.ts";
import { reconcileReservation } from "./reconcile.ts";

/**
 * Follows launched clusters until they are Running or failed: posts the launch card where the
 * launch began, edits it in place (`chat.update`) on every state change, and mentions the
 * requester in its thread when it settles (an edit alone notifies nobody). The watched
 * launches live in SQLite, so a restart picks them up again, and so do reservations an earlier
 * run left unsettled (src/launch/reconcile.ts).
 *
 * It is the only poster of launch cards: the submit path asks it (`follow`) instead of posting,
 * and its work runs one piece at a time, so a launch never gets two cards. A card Slack refuses
 * is tried a bounded number of times (card-attempts.ts); the 3 h limit holds regardless.
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
  db: SqlDb;
  palette: PaletteApi;
  sink: CardSink;
  clock: Clock;
  logger: Logger;
  consoleUrl: string;
  /** give up following after this long; default 3 hours */
  maxWatchMs?: number;
  /** how a card Slack refuses is tried again; default DEFAULT_CARD_RETRY */
  cardRetry?: CardRetryPolicy;
  /** an unsettled reservation Palette has no cluster for is released after this; default 2 min */
  releaseGraceMs?: number;
  /**
   * a reservation still `submitting` this long is no longer being submitted (the Palette
   * client's time-outs end a create long before): it is reconciled; default 15 minutes
   */
  staleAfterMs?: number;
  /**
   * Run first inside the transactions of the tracker's own rounds (a card's ts, a launch's
   * state); throws (FencedOut) when this replica no longer leads (src/store/lease.ts). A card a
   * command posts at once (`follow`) is that command's write, served by any replica: not fenced.
   */
  fence?: (tx: SqlExecutor) => Promise<void>;
}

/** what became of a card this round */
type Delivery = "shown" | "retry" | "gone";

export class LaunchTracker {
  private readonly store: LaunchStore;
  private readonly attempts: CardAttempts;
  /**
   * Reservations up to this id were made before this tracker existed, by an earlier run: none
   * of them is still being submitted, so each is settled against Palette. The runtime builds
   * the tracker before the app takes requests, so no submission of this run is below it (the
   * read is issued when the tracker is built, and awaited where it is needed).
   */
  private readonly earlierUpTo: Promise<number>;
  /** reservations this run's submits could not settle (lost answer, store refused the record) */
  private readonly handedOver = new Set<number>();
  /** cards Slack took whose ts the store refused: recorded on the next try, never re-posted */
  private readonly postedNotRecorded = new Map<number, { channel: string; ts: string }>();
  /** every piece of work runs after the previous one, so two never post the same card */
  private queue: Promise<unknown> = Promise.resolve();
  private pendingTick: Promise<number> | undefined;
  private stopper: { stop(): void } | undefined;
  private stopped = false;

  constructor(private readonly deps: LaunchTrackerDeps) {
    this.store = new LaunchStore(deps.db, deps.clock);
    this.attempts = new CardAttempts(deps.cardRetry ?? DEFAULT_CARD_RETRY);
    this.earlierUpTo = this.store.lastId();
    // a failed read surfaces where it is awaited (each tick), not as an unhandled rejection
    this.earlierUpTo.catch(() => undefined);
  }

  private card(record: LaunchRecord, state: string | undefined, note?: string): CardMessage {
    return launchCard({
      name: record.name,
      provider: record.provider,
      projectUid: record.projectUid,
      requester: record.requester,
      ...(record.paletteUser ? { paletteUser: record.paletteUser } : {}),
      clusterUid: record.clusterUid,
      state,
      consoleUrl: this.deps.consoleUrl,
      note,
    });
  }

  /**
   * Posts the card of a just-created launch now, unless it has one (or the tracker stopped: the
   * next start posts it). Waits its turn behind a tick in progress, which may have posted it.
   */
  follow(launchId: number): Promise<LaunchRecord | undefined> {
    if (this.stopped) return Promise.resolve(undefined);
    return this.exclusive(async () => {
      const record = await this.store.get(launchId);
      if (record?.status !== "created" || record.done || record.cardTs) return record;
      await this.deliver(record, record.lastState, undefined, false, false, false);
      return this.store.get(launchId);
    });
  }

  /**
   * A reservation whose create the submit could not settle: from the next tick on, Palette is
   * asked for the cluster by name. False when the tracker is stopped: the next start asks.
   */
  lookFor(launchId: number): boolean {
    if (this.stopped) return false;
    this.handedOver.add(launchId);
    return true;
  }

  /** One look at every unsettled reservation and open launch; returns how many cards changed. */
  tick(): Promise<number> {
    if (this.stopped) return Promise.resolve(0);
    // following launches is routine: a user's command goes before it on Palette's budget
    this.pendingTick ??= this.exclusive(() => inBackground(() => this.check())).finally(() => {
      this.pendingTick = undefined;
    });
    return this.pendingTick;
  }

  /** Follows on `schedule`, and looks once at once: what an earlier run left waits no tick. */
  start(schedule: Scheduler): void {
    this.stopper?.stop();
    this.stopped = false;
    const tick = async () => {
      await this.tick().catch((error: unknown) =>
        this.deps.logger.error({ err: String(error) }, "launch watch failed"),
      );
    };
    this.stopper = schedule(tick);
    void tick();
  }

  /**
   * Stops the schedule and waits for work in progress: it writes to the store, so the caller
   * must not close the database before this resolves. Nothing is posted after it.
   */
  async stop(): Promise<void> {
    this.stopper?.stop();
    this.stopper = undefined;
    this.stopped = true;
    for (;;) {
      const last = this.queue;
      await last;
      if (last === this.queue) return;
    }
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private async check(): Promise<number> {
    await this.reconcile();
    let changed = 0;
    for (const record of await this.store.open()) {
      if (!record.clusterUid) continue;
      if (await this.followOne(record)) changed++;
    }
    return changed;
  }

  /** reservations nobody in this run is still submitting: settled against Palette by name */
  private async reconcile(): Promise<void> {
    const { clock, logger } = this.deps;
    const staleAfterMs = this.deps.staleAfterMs ?? 15 * 60_000;
    const earlierUpTo = await this.earlierUpTo;
    for (const record of await this.store.submitting()) {
      const unsettled =
        record.id <= earlierUpTo ||
        this.handedOver.has(record.id) ||
        clock.now() - record.createdAt >= staleAfterMs;
      if (!unsettled) continue;
      try {
        const result = await reconcileReservation(record, this.deps, this.deps.releaseGraceMs);
        if (result !== "waiting") this.handedOver.delete(record.id);
      } catch (error) {
        // Palette unreachable is not "no such cluster": keep the name, ask again next tick
        logger.warn(
          { err: String(error), launchId: record.id, name: record.name },
          "launch reservation not settled yet; will ask Palette again",
        );
      }
    }
  }

  /** One open launch: reads its state, shows it on the card, ends the follow when due. */
  private async followOne(record: LaunchRecord): Promise<boolean> {
    const now = this.deps.clock.now();
    const maxWatchMs = this.deps.maxWatchMs ?? 3 * 3600_000;
    let state = record.lastState;
    let note: string | undefined;
    try {
      state =
        (await this.deps.palette.getClusterState(record.clusterUid!, {
          projectUid: record.projectUid || undefined,
        })) ?? record.lastState;
    } catch (error) {
      if (error instanceof PaletteError && error.kind === "not_found") {
        state = "Deleted";
        note = "The cluster is no longer in Palette.";
      } else {
        // the state shown stays the last one read
        this.deps.logger.warn(
          { err: String(error), clusterUid: record.clusterUid },
          "launch watch: state not read; will retry",
        );
      }
    }
    // the limit holds whatever Palette or Slack do: an unreadable state counts as unsettled
    const timedOut = !isSettled(state) && now - record.createdAt > maxWatchMs;
    if (timedOut) note = "Still not Running after a long wait; stopped following. Check Palette.";
    const news = state !== record.lastState || note !== undefined;
    const needsCard = !record.cardTs && !this.attempts.givenUp(record.id);
    if (!news && !needsCard) return false;
    const done = isSettled(state) || timedOut;
    const delivery = await this.deliver(record, state, note, done, timedOut, true);
    // a card still to be shown keeps the old state, so the next try shows the new one
    if (delivery === "retry" && !timedOut) return false;
    if (news || done) {
      await this.write(true, (tx) =>
        new LaunchStore(tx, this.deps.clock).setState(record.id, state ?? "Pending", done),
      );
    }
    if (done) {
      this.attempts.forget(record.id);
      this.postedNotRecorded.delete(record.id);
    }
    return delivery === "shown";
  }

  /**
   * Posts the card, or edits it, with `state`; mentions the requester when the launch is
   * `done`. `final`: the follow ends now, so a backoff is not waited out.
   */
  private async deliver(
    record: LaunchRecord,
    state: string | undefined,
    note: string | undefined,
    done: boolean,
    final: boolean,
    /** a round of the tracker's own (fenced), not a command's `follow` */
    round: boolean,
  ): Promise<Delivery> {
    const { sink, logger, clock } = this.deps;
    if (this.attempts.givenUp(record.id)) return "gone";
    if (!final && !this.attempts.due(record.id, clock.now())) return "retry";
    let cardTs = record.cardTs;
    let channel = record.channel;
    try {
      const message = this.card(record, state, note);
      if (!cardTs) {
        const posted =
          this.postedNotRecorded.get(record.id) ??
          (await sink.post(record.channel, message, record.requester));
        this.postedNotRecorded.set(record.id, posted);
        await this.recordCard(record, posted, round);
        this.postedNotRecorded.delete(record.id);
        ({ channel, ts: cardTs } = posted);
      } else {
        await sink.update(channel, cardTs, message);
      }
      this.attempts.succeeded(record.id);
    } catch (error) {
      const gaveUp = this.attempts.failed(record.id, clock.now());
      logger.warn(
        { err: String(error), launchId: record.id, gaveUp },
        gaveUp
          ? "launch card refused too often; following the cluster without it"
          : "could not show the launch card; will try again",
      );
      return gaveUp ? "gone" : "retry";
    }
    if (done) await this.mentionRequester(record, channel, cardTs, state);
    return "shown";
  }

  /**
   * The card's ts and the "one card per (channel, cluster)" entry land in one write: the
   * notifier then threads its lines under this card instead of posting a second one when the
   * channel is also subscribed.
   */
  private async recordCard(
    record: LaunchRecord,
    posted: { channel: string; ts: string },
    round: boolean,
  ): Promise<void> {
    const { clock } = this.deps;
    await this.write(round, async (tx) => {
      await new LaunchStore(tx, clock).setCard(record.id, posted.channel, posted.ts);
      if (record.clusterUid) {
        await adoptCard(
          tx,
          { channel: posted.channel, clusterUid: record.clusterUid, ts: posted.ts },
          clock,
        );
      }
    });
  }

  /** one transaction; for a round of the tracker's own, fenced first */
  private write<T>(round: boolean, work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.deps.db.transaction(async (tx) => {
      if (round) await this.deps.fence?.(tx);
      return work(tx);
    });
  }

  /** an edit notifies nobody: the requester hears of the end in the card's thread */
  private async mentionRequester(
    record: LaunchRecord,
    channel: string,
    cardTs: string,
    state: string | undefined,
  ): Promise<void> {
    const phase = launchPhase(state);
    const text =
      phase === "running"
        ? `${mention(record.requester)} your cluster ${code(record.name)} is Running.`
        : `${mention(record.requester)} your cluster ${code(record.name)} did not come up (${escapeMrkdwn(state ?? "unknown")}).`;
    await this.deps.sink.reply(channel, cardTs, text).catch((error: unknown) => {
      this.deps.logger.warn(
        { err: String(error), launchId: record.id },
        "could not mention the requester",
      );
    });
  }
}
