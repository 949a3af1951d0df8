import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import { isChannelDigestPost } from "../../model/channel-digest.ts";
import type { CardPayload, DigestPayload, SummaryPayload } from "../../model/notification.ts";
import { AckStore } from "../../store/acks.ts";
import { CardStore } from "../../store/cards.ts";
import { FencedOut } from "../../store/lease.ts";
import { type OutboxRow, OutboxStore } from "../../store/outbox.ts";
import type { SqlDb, SqlExecutor } from "../../store/sql.ts";
import { SubscriptionStore } from "../../store/subscriptions.ts";
import { recoveryThreadLine } from "../../views/card-ack.ts";
import { channelDigestMessage } from "../../views/channel-digest.ts";
import {
  notificationCard,
  notificationDigest,
  notificationNotice,
  notificationSummary,
  notificationThreadLine,
  type RenderedMessage,
} from "../../views/notification.ts";
import { cardStatus } from "../oncall/card-status.ts";
import { ackOutlived, endsIncident } from "../oncall/incident.ts";
import { ChannelPacing } from "./channel-pacing.ts";
import { createPostOnce, EARLIER_ATTEMPT_IN_FLIGHT, type PostMessage } from "./post-once.ts";
import { type SlackPoster, SlackSendError } from "./slack-port.ts";

export interface SenderOptions {
  db: SqlDb;
  slack: SlackPoster;
  clock: Clock;
  logger: Logger;
  /** waits `ms`; tests pass one that advances a ManualClock */
  sleep?: (ms: number) => Promise<void>;
  /** PALETTE_CONSOLE_URL: cards get an "Open in Palette" button */
  consoleUrl?: string;
  /** minimum gap between two messages in one channel at the steady rate (Slack: about one per second) */
  minGapMs?: number;
  /** messages a quiet channel may take at once before that gap applies (default 1: no burst) */
  burst?: number;
  /** retry backoff, and the probe interval while Slack refuses the workspace */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** 0..1, for backoff jitter; injectable for deterministic tests */
  random?: () => number;
  /** how often the background loop looks at the outbox when nobody woke it */
  idlePollMs?: number;
  /** failed attempts (5xx, time-out, unknown code) before a row becomes a dead letter */
  maxAttempts?: number;
  /**
   * Slack calls in flight at once, across channels (each channel has at most one): enough for
   * many channels to move side by side, few enough that a 200-channel burst stays clear of 429s
   */
  maxInFlight?: number;
  /** the sender paused because Slack refuses the workspace, or resumed; for metrics */
  onPauseChange?: (state: { paused: true; reason: string } | { paused: false }) => void;
  /**
   * Run first inside every transaction that records what Slack answered (sent, a card's ts or
   * step, a retry, a deferral, a fallback, a dead letter, a channel parked); throws (FencedOut)
   * when this replica no longer leads, so a sender deposed while Slack answered writes nothing
   * about the row: the new leader's sender sends it (src/store/lease.ts)
   */
  fence?: (tx: SqlExecutor) => Promise<void>;
  /**
   * how long an unanswered earlier post may still land (post-once.ts, 15 s by default): a test
   * whose Slack holds calls past every time-out on purpose may say 0
   */
  earlierAttemptSettlesMs?: number;
}

export interface SenderMetrics {
  sent: number;
  updates: number;
  retries: number;
  rateLimited: number;
  /** rows held because their channel closed to the bot */
  parked: number;
  /** rows given up: retries spent, or refused even as plain text */
  deadLettered: number;
  /** rows resent as plain text after Slack refused their blocks */
  fallbacks: number;
  /** times the whole sender paused on a workspace-level refusal */
  pauses: number;
}

export interface SenderStatus {
  paused: boolean;
  /** Slack's code, e.g. invalid_auth */
  reason?: string;
  since?: number;
  /** when the next row goes out to see whether Slack takes the bot back */
  nextProbeAt?: number;
}

export interface Sender {
  /**
   * One round: starts the due head row of every channel not already busy (up to `maxInFlight`)
   * and waits for those; returns when the next round is due. For tests and tools: the running
   * sender (`start`) and `drainAll` never wait on one channel before serving another.
   */
  drainOnce(): Promise<{ sent: number; pending: number; nextAt?: number }>;
  /** until the outbox is empty (or `maxRounds`), each channel moving as soon as it may */
  drainAll(maxRounds?: number): Promise<void>;
  start(): void;
  stop(): Promise<void>;
  /** new rows are waiting: look now */
  wake(): void;
  metrics(): SenderMetrics;
  /** waiting messages, the oldest one's age, dead letters and held rows (src/http/metrics.ts) */
  outboxStats(): Promise<{
    depth: number;
    oldestAgeSeconds: number;
    deadLetters: number;
    parked: number;
  }>;
  /** paused or not, and why (for /readyz) */
  status(): SenderStatus;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const iso = (ms: number) => new Date(ms).toISOString();
const macrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Pause {
  reason: string;
  since: number;
  /** failed probes so far: the interval doubles with each, up to backoffMaxMs */
  probes: number;
  nextProbeAt: number;
}

/**
 * Drains the outbox per channel, strictly in id order, at most one message per `minGapMs` per
 * channel. A row is marked sent in the same transaction that stores what Slack gave back (the
 * card's ts), so a crash re-sends at most the one message in flight per channel.
 *
 * Channels move independently: each has at most one call in flight, a global cap bounds them
 * all, and a channel waiting on Slack never holds up another. What a failure costs depends on
 * whose fault it is: a refusal of the bot itself (invalid_auth, missing_scope…) pauses the sender,
 * which then sends one row now and then until Slack takes it back, losing nothing; a refusal of a
 * message's content gets one plain-text retry and is then set aside; anything else is retried
 * with backoff until `maxAttempts`, then set aside. Set-aside rows (dead letters) never block the
 * rows behind them, and `/palette subscriptions retry` queues them again.
 */
export function createSender(options: SenderOptions): Sender {
  const { db, slack, clock, logger } = options;
  const outbox = new OutboxStore(db);
  const cards = new CardStore(db);
  const acks = new AckStore(db);
  const sleep = options.sleep ?? realSleep;
  const minGapMs = options.minGapMs ?? 1000;
  const backoffBaseMs = options.backoffBaseMs ?? 1000;
  const backoffMaxMs = options.backoffMaxMs ?? 60_000;
  const maxAttempts = Math.max(1, options.maxAttempts ?? 8);
  const maxInFlight = Math.max(1, options.maxInFlight ?? 8);
  const random = options.random ?? Math.random;
  const pacing = new ChannelPacing(minGapMs, options.burst ?? 1);
  const once = createPostOnce({
    db,
    slack,
    logger,
    fence: options.fence,
    settlesMs: options.earlierAttemptSettlesMs,
  });
  /** the key a row's posts are marked and found under (post-once.ts) */
  const keyOf = (row: OutboxRow) => `outbox:${row.id}`;
  /** a transaction that first proves this replica still leads (when a fence is given) */
  const fenced = <T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> =>
    db.transaction(async (tx) => {
      await options.fence?.(tx);
      return work(tx);
    });
  const metrics: SenderMetrics = {
    sent: 0,
    updates: 0,
    retries: 0,
    rateLimited: 0,
    parked: 0,
    deadLettered: 0,
    fallbacks: 0,
    pauses: 0,
  };

  /** channel → its call in flight */
  const busy = new Map<string, Promise<void>>();
  /** told whenever a call settles */
  const settledWaiters = new Set<() => void>();
  let pause: Pause | undefined;
  let probing = false;
  /** the last time Slack accepted any call: proof it answers */
  let lastAcceptedAt = Number.NEGATIVE_INFINITY;

  /** channels whose last round failed in the store itself: not before this (in memory only) */
  const holdUntil = new Map<string, number>();

  const readyAt = (row: OutboxRow) =>
    Math.max(
      row.nextAttemptAt,
      pacing.readyAt(row.channel),
      holdUntil.get(row.channel) ?? -Infinity,
    );
  const exponential = (n: number) => Math.min(backoffMaxMs, backoffBaseMs * 2 ** Math.min(n, 16));

  function accepted(): void {
    lastAcceptedAt = clock.now();
    if (!pause) return;
    logger.info(
      { reason: pause.reason, pausedForMs: clock.now() - pause.since },
      "Slack accepts the bot again; notifications resume",
    );
    pause = undefined;
    options.onPauseChange?.({ paused: false });
  }

  /** Plain text only once Slack refused the row's blocks. */
  const shaped = (row: OutboxRow, view: RenderedMessage) =>
    row.plainText ? { text: view.text } : view;

  /** posts once: an earlier attempt of the row that reached Slack is found, not posted again */
  async function post(row: OutboxRow, message: PostMessage) {
    const result = await once.post(keyOf(row), message);
    accepted();
    if (result.found) return result;
    pacing.sent(message.channel, clock.now());
    metrics.sent += 1;
    // one line per notification sent: operators can follow what reached which channel
    logger.info(
      { channel: message.channel, ts: result.ts, thread: message.thread_ts !== undefined },
      "notification sent",
    );
    return result;
  }

  /** true when the row is done; false when it needs another round (a second message). */
  async function process(row: OutboxRow): Promise<boolean> {
    const now = () => iso(clock.now());
    let view: RenderedMessage;
    switch (row.kind) {
      case "card":
        return processCard(row, row.payload as CardPayload);
      case "summary":
        view = notificationSummary(row.payload as SummaryPayload);
        break;
      case "digest":
        view = notificationDigest(row.payload as DigestPayload);
        break;
      case "post":
      case "thread":
        // a scheduled channel digest travels as a post that carries the digest beside its text
        view = isChannelDigestPost(row.payload)
          ? channelDigestMessage(row.payload.channelDigest)
          : notificationNotice((row.payload as { text?: string }).text ?? "");
        break;
    }
    await post(row, { channel: row.channel, ...shaped(row, view) });
    await fenced(async (tx) => {
      await once.settled(tx, keyOf(row));
      await new OutboxStore(tx).markSent(row.id, now());
    });
    return true;
  }

  async function processCard(row: OutboxRow, payload: CardPayload): Promise<boolean> {
    const uid = payload.cluster.uid;
    const now = () => iso(clock.now());
    const card = await cards.get(row.channel, uid);
    const earlier = await acks.get(row.channel, uid);
    if (row.step === 0 && earlier && ackOutlived(payload, earlier)) {
      // a new incident: whoever had the last one has not taken this one
      await acks.clear(row.channel, uid);
      logger.info({ channel: row.channel, uid }, "acknowledgement ended: a new incident began");
    }
    // on recovery the card drops the acknowledgement at once; the store keeps it until the
    // thread line naming who had it has gone out
    const recovers = endsIncident(payload);
    const status = await cardStatus(db, row.channel, uid, clock.now());
    const shown = recovers ? { ...status, ack: undefined } : status;
    const view = shaped(row, notificationCard(payload, { consoleUrl: options.consoleUrl }, shown));
    if (row.step === 0) {
      if (card?.owner) {
        // someone else's message (the launch card): it is theirs to edit; we only add lines
      } else if (card) {
        try {
          await slack.update({ channel: row.channel, ts: card.ts, ...view });
          metrics.updates += 1;
          accepted();
          logger.info({ channel: row.channel, ts: card.ts }, "notification card updated");
          await fenced(async (tx) => {
            await new CardStore(tx).setPayload(row.channel, uid, payload);
            await new OutboxStore(tx).setStep(row.id, 1);
          });
        } catch (error) {
          if (error instanceof SlackSendError && error.kind === "gone") {
            // someone deleted the card: forget it and post a fresh one next round
            await fenced((tx) => new CardStore(tx).remove(row.channel, uid));
            return false;
          }
          throw error;
        }
      } else {
        const { ts } = await post(row, { channel: row.channel, ...view });
        await fenced(async (tx) => {
          await once.settled(tx, keyOf(row));
          await new CardStore(tx).put(
            { channel: row.channel, clusterUid: uid, ts, payload },
            now(),
          );
          if (recovers) await new AckStore(tx).clear(row.channel, uid);
          await new OutboxStore(tx).markSent(row.id, now());
        });
        return true;
      }
    }
    const current = await cards.get(row.channel, uid);
    if (!current) {
      await fenced((tx) => new OutboxStore(tx).setStep(row.id, 0));
      return false;
    }
    const ack = await acks.get(row.channel, uid);
    const line =
      recovers && ack ? recoveryThreadLine(payload, ack) : notificationThreadLine(payload);
    await post(row, {
      channel: row.channel,
      ...shaped(row, line),
      thread_ts: current.ts,
      // once someone has it in hand, the rest of the incident stays in the thread; the end of a
      // snooze or mute is said in the channel (that one line replaces every change kept back)
      reply_broadcast: (payload.worse || payload.held !== undefined) && !ack,
    });
    await fenced(async (tx) => {
      await once.settled(tx, keyOf(row));
      if (recovers && ack) {
        await new AckStore(tx).clear(row.channel, uid);
        logger.info(
          { channel: row.channel, uid, had: ack.userId },
          "acknowledgement ended: recovered",
        );
      }
      await new OutboxStore(tx).markSent(row.id, now());
    });
    return true;
  }

  function pauseFor(code: string, probe: boolean): void {
    const now = clock.now();
    if (!pause) {
      pause = { reason: code, since: now, probes: 0, nextProbeAt: now + exponential(0) };
      metrics.pauses += 1;
      logger.error(
        { code, retryInMs: exponential(0) },
        "Slack refuses the bot itself; notifications paused, nothing is dropped, retrying by itself",
      );
      options.onPauseChange?.({ paused: true, reason: code });
      return;
    }
    if (!probe) return;
    pause.probes += 1;
    pause.reason = code;
    pause.nextProbeAt = now + exponential(pause.probes);
    logger.warn(
      { code, retryInMs: exponential(pause.probes) },
      "Slack still refuses the bot; notifications stay paused",
    );
  }

  /** Before a row is given up: is it this row, or is Slack away altogether? */
  async function slackAnswers(): Promise<boolean> {
    if (clock.now() - lastAcceptedAt <= backoffMaxMs || !slack.ping) return true;
    try {
      await slack.ping();
      return true;
    } catch (error) {
      if (error instanceof SlackSendError && error.kind === "workspace")
        pauseFor(error.code, false);
      return false;
    }
  }

  async function retryOrGiveUp(row: OutboxRow, sendError: SlackSendError): Promise<void> {
    const attempts = row.attempts + 1;
    const now = clock.now();
    const exp = exponential(row.attempts);
    const delay = Math.round(exp / 2 + (random() * exp) / 2);
    if (attempts < maxAttempts || !(await slackAnswers())) {
      metrics.retries += 1;
      await fenced((tx) => new OutboxStore(tx).retryLater(row.id, now + delay));
      logger.warn(
        { channel: row.channel, code: sendError.code, attempts, delayMs: delay },
        "Slack call failed; retrying",
      );
      return;
    }
    await deadLetter(row, `Slack: ${sendError.code} after ${attempts} attempts`);
  }

  async function deadLetter(row: OutboxRow, reason: string): Promise<void> {
    metrics.deadLettered += 1;
    await fenced((tx) => new OutboxStore(tx).deadLetter(row.id, reason, iso(clock.now())));
    logger.error(
      { channel: row.channel, row: row.id, reason },
      "notification set aside as a dead letter; the channel goes on (/palette subscriptions retry)",
    );
  }

  async function fail(row: OutboxRow, error: unknown, probe: boolean): Promise<void> {
    const sendError =
      error instanceof SlackSendError
        ? error
        : new SlackSendError("transient", error instanceof Error ? error.name : "unknown");
    const now = clock.now();
    if (sendError.kind === "workspace") {
      // the row did nothing wrong: it waits as it is, its retry budget untouched
      pauseFor(sendError.code, probe);
      return;
    }
    if (sendError.code === EARLIER_ATTEMPT_IN_FLIGHT) {
      // nobody failed: the row waits for its earlier call to end, its retry budget untouched
      const retryAt = now + Math.max(1, sendError.retryAfterMs ?? backoffBaseMs);
      await fenced((tx) => new OutboxStore(tx).deferTo(row.id, retryAt));
      return;
    }
    if (probe && pause && (sendError.kind === "transient" || sendError.kind === "ratelimited")) {
      // no verdict on the bot either way: stay paused, probe again later, charge nobody
      pauseFor(pause.reason, true);
      return;
    }
    // any other answer means Slack looked at the message, so it takes the bot again
    if (probe) accepted();
    switch (sendError.kind) {
      case "ratelimited": {
        metrics.rateLimited += 1;
        const retryAt = now + (sendError.retryAfterMs ?? minGapMs);
        pacing.slowDown(row.channel, retryAt);
        await fenced((tx) => new OutboxStore(tx).deferTo(row.id, retryAt));
        logger.warn(
          { channel: row.channel, retryAfterMs: sendError.retryAfterMs },
          "Slack rate-limited a notification; waiting as told",
        );
        return;
      }
      case "channel": {
        const reason = `Slack: ${sendError.code}`;
        metrics.parked += await fenced(async (tx) => {
          await new SubscriptionStore(tx, clock).pauseChannel(row.channel, reason);
          return new OutboxStore(tx).parkChannel(row.channel, reason);
        });
        logger.warn(
          { channel: row.channel, code: sendError.code },
          "channel closed to the bot; its subscriptions are paused and its messages held",
        );
        return;
      }
      case "rejected":
        if (!row.plainText) {
          metrics.fallbacks += 1;
          await fenced((tx) => new OutboxStore(tx).usePlainText(row.id));
          logger.warn(
            { channel: row.channel, code: sendError.code, row: row.id },
            "Slack refused a notification's blocks; sending it once more as plain text",
          );
          return;
        }
        await deadLetter(row, `Slack: ${sendError.code}`);
        return;
      default:
        await retryOrGiveUp(row, sendError);
    }
  }

  function launch(row: OutboxRow, probe: boolean): Promise<void> {
    if (probe) probing = true;
    // deferred one microtask, so the channel counts as busy before any of its work runs
    const task = Promise.resolve()
      .then(async () => {
        try {
          await process(row);
        } catch (error) {
          // deposed: the row is the new leader's now; this sender writes nothing more about it
          if (error instanceof FencedOut) throw error;
          await fail(row, error, probe);
        }
      })
      .catch((error: unknown) => {
        // the store failed under us: the row stays pending and is tried again, not at once
        holdUntil.set(row.channel, clock.now() + backoffBaseMs);
        logger.error({ err: String(error), channel: row.channel }, "notification round failed");
      })
      .finally(() => {
        busy.delete(row.channel);
        if (probe) probing = false;
        settles += 1;
        for (const wake of [...settledWaiters]) wake();
      });
    busy.set(row.channel, task);
    launches.set(row.channel, (launches.get(row.channel) ?? 0) + 1);
    return task;
  }

  /** calls settled so far: a look at the outbox made while one settled may have missed its next row */
  let settles = 0;
  /** launches so far, per channel: a head read before the last launch may be sent already */
  const launches = new Map<string, number>();

  /** Starts every due head row of a free channel, oldest first, up to the in-flight cap. */
  async function launchDue(): Promise<Promise<void>[]> {
    const started: Promise<void>[] = [];
    if (pause && (probing || clock.now() < pause.nextProbeAt)) return started;
    // The heads are read while calls may settle: a channel busy when the read began, or
    // launched since, may have its head sent already, so it waits for the next round.
    const busyBefore = new Set(busy.keys());
    const launchesBefore = new Map(launches);
    const heads = await outbox.heads();
    const now = clock.now();
    if (pause && (probing || now < pause.nextProbeAt)) return started;
    for (const row of heads) {
      if (busy.size >= maxInFlight) break;
      if (busyBefore.has(row.channel) || busy.has(row.channel) || readyAt(row) > now) continue;
      if (launches.get(row.channel) !== launchesBefore.get(row.channel)) continue;
      started.push(launch(row, pause !== undefined));
      // paused: one row at a time finds out whether Slack takes the bot back
      if (pause) break;
    }
    return started;
  }

  /** When a free channel's next row falls due; undefined when only a settling call can help. */
  async function nextDueAt(): Promise<number | undefined> {
    if (busy.size >= maxInFlight || (pause && probing)) return undefined;
    const heads = await outbox.heads();
    if (busy.size >= maxInFlight || (pause && probing)) return undefined;
    const free = heads.filter((row) => !busy.has(row.channel));
    if (free.length === 0) return undefined;
    const earliest = Math.min(...free.map(readyAt));
    return pause ? Math.max(earliest, pause.nextProbeAt) : earliest;
  }

  function anySettled(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        settledWaiters.delete(done);
        resolve();
      };
      settledWaiters.add(done);
    });
  }

  async function drainOnce() {
    const before = metrics.sent;
    await Promise.all(await launchDue());
    return {
      sent: metrics.sent - before,
      pending: await outbox.pendingCount(),
      nextAt: await nextDueAt(),
    };
  }

  async function drainAll(maxRounds = Number.POSITIVE_INFINITY) {
    for (let round = 0; round < maxRounds; round++) {
      await launchDue();
      const settledBefore = settles;
      const nextAt = await nextDueAt();
      if (busy.size === 0) {
        // a channel busy while nextDueAt read the heads may have settled since: look again
        if (nextAt === undefined && settles !== settledBefore) continue;
        if (nextAt === undefined) return;
        const wait = nextAt - clock.now();
        if (wait > 0) await sleep(wait);
        continue;
      }
      if (nextAt === undefined || nextAt <= clock.now()) {
        await anySettled();
        continue;
      }
      // a call in flight and another channel due later: whichever comes first. A call that
      // answers at once gets its turn before the clock is moved on.
      const settled = anySettled();
      let first = false;
      await Promise.race([settled.then(() => (first = true)), macrotask()]);
      if (!first) await Promise.race([settled, sleep(nextAt - clock.now())]);
    }
  }

  let running = false;
  let loop: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;

  return {
    drainOnce,
    drainAll,
    metrics: () => ({ ...metrics }),
    outboxStats: () => outbox.stats(clock.now()),
    status: () =>
      pause
        ? { paused: true, reason: pause.reason, since: pause.since, nextProbeAt: pause.nextProbeAt }
        : { paused: false },
    wake() {
      wakeUp?.();
    },
    start() {
      if (running) return;
      running = true;
      const idle = options.idlePollMs ?? 1000;
      loop = (async () => {
        while (running) {
          try {
            await launchDue();
            const nextAt = await nextDueAt();
            const wait =
              nextAt === undefined ? idle : Math.min(idle, Math.max(1, nextAt - clock.now()));
            // woken by the timer, by new rows, or by any call settling (its channel is free)
            await new Promise<void>((resolve) => {
              const done = () => {
                clearTimeout(timer);
                settledWaiters.delete(done);
                wakeUp = undefined;
                resolve();
              };
              const timer = setTimeout(done, wait);
              settledWaiters.add(done);
              wakeUp = done;
            });
          } catch (error) {
            logger.error({ err: String(error) }, "notification sender round failed");
            await realSleep(idle);
          }
        }
      })();
    },
    async stop() {
      running = false;
      wakeUp?.();
      await loop;
      loop = undefined;
      // calls in flight end by their own time-out; the store must outlive them
      await Promise.allSettled([...busy.values()]);
    },
  };
}
