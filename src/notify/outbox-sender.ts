import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { CardPayload, DigestPayload, SummaryPayload } from "../model/notification.ts";
import { CardStore } from "../store/cards.ts";
import type { Db } from "../store/db.ts";
import { type OutboxRow, OutboxStore } from "../store/outbox.ts";
import { SubscriptionStore } from "../store/subscriptions.ts";
import {
  notificationCard,
  notificationDigest,
  notificationNotice,
  notificationSummary,
  notificationThreadLine,
} from "../views/notification.ts";
import { type SlackPoster, SlackSendError } from "./slack-port.ts";

export interface SenderOptions {
  db: Db;
  slack: SlackPoster;
  clock: Clock;
  logger: Logger;
  /** waits `ms`; tests pass one that advances a ManualClock */
  sleep?: (ms: number) => Promise<void>;
  /** PALETTE_CONSOLE_URL: cards get an "Open in Palette" button */
  consoleUrl?: string;
  /** minimum gap between two messages in one channel (Slack: about one per second) */
  minGapMs?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** 0..1, for backoff jitter; injectable for deterministic tests */
  random?: () => number;
  /** how often the background loop looks at the outbox when nobody woke it */
  idlePollMs?: number;
}

export interface SenderMetrics {
  sent: number;
  updates: number;
  retries: number;
  rateLimited: number;
  parked: number;
}

export interface Sender {
  /** one round: at most one message per ready channel; returns when the next round is due */
  drainOnce(): Promise<{ sent: number; pending: number; nextAt?: number }>;
  /** rounds until the outbox is empty (or `maxRounds`), sleeping between them */
  drainAll(maxRounds?: number): Promise<void>;
  start(): void;
  stop(): Promise<void>;
  /** new rows are waiting: run a round soon */
  wake(): void;
  metrics(): SenderMetrics;
  /** waiting messages and the oldest one's age (src/http/metrics.ts OutboxStats) */
  outboxStats(): { depth: number; oldestAgeSeconds: number };
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Drains the outbox per channel, strictly in id order, at most one message per `minGapMs` per
 * channel. A row is marked sent in the same transaction that stores what Slack gave back (the
 * card's ts), so a crash re-sends at most the one message in flight.
 */
export function createSender(options: SenderOptions): Sender {
  const { db, slack, clock, logger } = options;
  const outbox = new OutboxStore(db);
  const cards = new CardStore(db);
  const subscriptions = new SubscriptionStore(db, clock);
  const sleep = options.sleep ?? realSleep;
  const minGapMs = options.minGapMs ?? 1000;
  const backoffBaseMs = options.backoffBaseMs ?? 1000;
  const backoffMaxMs = options.backoffMaxMs ?? 60_000;
  const random = options.random ?? Math.random;
  const lastPost = new Map<string, number>();
  const metrics: SenderMetrics = { sent: 0, updates: 0, retries: 0, rateLimited: 0, parked: 0 };

  const readyAt = (row: OutboxRow) =>
    Math.max(row.nextAttemptAt, (lastPost.get(row.channel) ?? -Infinity) + minGapMs);

  async function post(message: Parameters<SlackPoster["postMessage"]>[0]) {
    const result = await slack.postMessage(message);
    lastPost.set(message.channel, clock.now());
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
    switch (row.kind) {
      case "summary": {
        const view = notificationSummary(row.payload as SummaryPayload);
        await post({ channel: row.channel, ...view });
        outbox.markSent(row.id, now());
        return true;
      }
      case "digest": {
        const view = notificationDigest(row.payload as DigestPayload);
        await post({ channel: row.channel, ...view });
        outbox.markSent(row.id, now());
        return true;
      }
      case "post":
      case "thread": {
        const payload = row.payload as { text?: string };
        await post({ channel: row.channel, ...notificationNotice(payload.text ?? "") });
        outbox.markSent(row.id, now());
        return true;
      }
      case "card":
        return processCard(row, row.payload as CardPayload);
    }
  }

  async function processCard(row: OutboxRow, payload: CardPayload): Promise<boolean> {
    const uid = payload.cluster.uid;
    const now = () => iso(clock.now());
    const card = cards.get(row.channel, uid);
    const view = notificationCard(payload, { consoleUrl: options.consoleUrl });
    if (row.step === 0) {
      if (card?.owner) {
        // someone else's message (the launch card): it is theirs to edit; we only add lines
      } else if (card) {
        try {
          await slack.update({ channel: row.channel, ts: card.ts, ...view });
          metrics.updates += 1;
          logger.info({ channel: row.channel, ts: card.ts }, "notification card updated");
          outbox.setStep(row.id, 1);
        } catch (error) {
          if (error instanceof SlackSendError && error.kind === "gone") {
            // someone deleted the card: forget it and post a fresh one next round
            cards.remove(row.channel, uid);
            return false;
          }
          throw error;
        }
      } else {
        const { ts } = await post({ channel: row.channel, ...view });
        db.transaction(() => {
          cards.put({ channel: row.channel, clusterUid: uid, ts }, now());
          outbox.markSent(row.id, now());
        })();
        return true;
      }
    }
    const current = cards.get(row.channel, uid);
    if (!current) {
      outbox.setStep(row.id, 0);
      return false;
    }
    const line = notificationThreadLine(payload);
    await post({
      channel: row.channel,
      ...line,
      thread_ts: current.ts,
      reply_broadcast: payload.worse,
    });
    outbox.markSent(row.id, now());
    return true;
  }

  function fail(row: OutboxRow, error: unknown): void {
    const sendError =
      error instanceof SlackSendError
        ? error
        : new SlackSendError("transient", error instanceof Error ? error.message : "unknown");
    const now = clock.now();
    switch (sendError.kind) {
      case "ratelimited":
        metrics.rateLimited += 1;
        outbox.retryLater(row.id, now + (sendError.retryAfterMs ?? minGapMs));
        logger.warn(
          { channel: row.channel, retryAfterMs: sendError.retryAfterMs },
          "Slack rate-limited a notification; waiting as told",
        );
        return;
      case "transient": {
        metrics.retries += 1;
        const exp = Math.min(backoffMaxMs, backoffBaseMs * 2 ** Math.min(row.attempts, 16));
        const delay = Math.round(exp / 2 + (random() * exp) / 2);
        outbox.retryLater(row.id, now + delay);
        logger.warn(
          { channel: row.channel, code: sendError.code, delayMs: delay },
          "Slack call failed; retrying",
        );
        return;
      }
      case "channel": {
        const reason = `Slack: ${sendError.code}`;
        db.transaction(() => {
          subscriptions.pauseChannel(row.channel, reason);
          metrics.parked += outbox.parkChannel(row.channel, reason);
        })();
        logger.warn(
          { channel: row.channel, code: sendError.code },
          "channel closed to the bot; its subscriptions are paused",
        );
        return;
      }
      default:
        metrics.parked += 1;
        outbox.park(row.id, `Slack: ${sendError.code}`);
        logger.error(
          { channel: row.channel, code: sendError.code, row: row.id },
          "Slack refused a notification; parked",
        );
    }
  }

  async function drainOnce() {
    const heads = outbox.heads();
    const now = clock.now();
    const due = heads.filter((row) => readyAt(row) <= now);
    const before = metrics.sent;
    await Promise.all(
      due.map(async (row) => {
        try {
          await process(row);
        } catch (error) {
          fail(row, error);
        }
      }),
    );
    const after = outbox.heads();
    const nextAt = after.length > 0 ? Math.min(...after.map(readyAt)) : undefined;
    return { sent: metrics.sent - before, pending: after.length, nextAt };
  }

  let running = false;
  let loop: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;

  async function drainAll(maxRounds = Number.POSITIVE_INFINITY) {
    for (let round = 0; round < maxRounds; round++) {
      const { pending, nextAt } = await drainOnce();
      if (pending === 0 || nextAt === undefined) return;
      const wait = nextAt - clock.now();
      if (wait > 0) await sleep(wait);
    }
  }

  return {
    drainOnce,
    drainAll,
    metrics: () => ({ ...metrics }),
    outboxStats: () => outbox.stats(clock.now()),
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
            const { pending, nextAt } = await drainOnce();
            const wait =
              pending > 0 && nextAt !== undefined ? Math.max(0, nextAt - clock.now()) : idle;
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, Math.min(wait, idle));
              wakeUp = () => {
                clearTimeout(timer);
                resolve();
              };
            });
            wakeUp = undefined;
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
    },
  };
}
