import type { Clock } from "../clock.ts";
import type { RequestPriority } from "./priority.ts";
import { DOCUMENTED_LIMITS, type RateRule, ruleFor } from "./rate-limits.ts";

/**
 * Client-side pacing at Palette's documented per-prefix limits (rate-limits.ts), so the bot stays
 * below them instead of learning them from 429s. Limits are per source IP and path prefix, so
 * every caller in the process shares one bucket per prefix.
 */

export type Sleep = (ms: number) => Promise<void>;

export const realSleep: Sleep = (ms) =>
  ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));

export interface LimiterOptions {
  clock: Clock;
  sleep: Sleep;
  rules?: readonly RateRule[];
  /**
   * Tokens a bucket holds when idle. 1 (the default) spaces requests evenly at 1/rate, so no
   * one-second window, sliding or fixed, ever sees more than the documented count.
   */
  burst?: number;
  /**
   * Fraction of the documented rate actually used; default 0.98. Timers fire a little early
   * or late, and a request that goes out 1 ms early could be the eleventh in some second;
   * 2% headroom keeps every window under the limit at a negligible cost in throughput.
   */
  headroom?: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * Token bucket with reservations: a caller takes a token at once, even if that drives the
 * bucket negative, and sleeps until its token would have been refilled. Each caller computes
 * its wait once, so there is no polling loop and tests with a hand-moved clock stay exact.
 */
export class RequestPacer {
  readonly #clock: Clock;
  readonly #sleep: Sleep;
  readonly #rules: readonly RateRule[];
  readonly #burst: number;
  readonly #headroom: number;
  readonly #buckets = new Map<string, Bucket>();
  /** per prefix: whether a background request holds a booking, and the ones waiting to book */
  readonly #background = new Map<
    string,
    { booked: boolean; waiting: Array<{ go: () => void; bulk: boolean }> }
  >();

  constructor(options: LimiterOptions) {
    this.#clock = options.clock;
    this.#sleep = options.sleep;
    this.#rules = options.rules ?? DOCUMENTED_LIMITS;
    this.#burst = Math.max(1, options.burst ?? 1);
    this.#headroom = Math.min(1, Math.max(0.1, options.headroom ?? 0.98));
  }

  /** How long a request to `path` must wait, after reserving its slot; 0 = go now. */
  reserve(path: string): number {
    const rule = ruleFor(path, this.#rules);
    const perSecond = rule.perSecond * this.#headroom;
    const now = this.#clock.now();
    const bucket = this.#buckets.get(rule.pattern) ?? { tokens: this.#burst, updatedAt: now };
    const elapsed = Math.max(0, now - bucket.updatedAt);
    bucket.tokens = Math.min(this.#burst, bucket.tokens + (elapsed * perSecond) / 1000);
    bucket.updatedAt = now;
    bucket.tokens -= 1;
    this.#buckets.set(rule.pattern, bucket);
    return bucket.tokens >= 0 ? 0 : Math.ceil((-bucket.tokens * 1000) / perSecond);
  }

  /**
   * Waits until a request to `path` may go; resolves with the time waited. Background and bulk
   * requests book a slot only one at a time per prefix (the next books when the previous goes
   * out), so an interactive request books behind at most one of them, never behind a whole poll;
   * among those waiting, the poll's (background) book before a reconciliation's (bulk).
   */
  async acquire(path: string, priority: RequestPriority = "interactive"): Promise<number> {
    if (priority === "interactive") return this.#acquireSlot(path);
    const key = ruleFor(path, this.#rules).pattern;
    const lane = this.#background.get(key) ?? { booked: false, waiting: [] };
    this.#background.set(key, lane);
    const queuedAt = this.#clock.now();
    if (lane.booked) {
      await new Promise<void>((go) => lane.waiting.push({ go, bulk: priority === "bulk" }));
    }
    lane.booked = true;
    try {
      await this.#acquireSlot(path);
    } finally {
      // this one goes out now: the next background request may book its slot, one of the
      // poll's before any of a reconciliation's
      const poll = lane.waiting.findIndex((waiter) => !waiter.bulk);
      const [next] = lane.waiting.splice(poll >= 0 ? poll : 0, 1);
      if (next) next.go();
      else lane.booked = false;
    }
    return this.#clock.now() - queuedAt;
  }

  async #acquireSlot(path: string): Promise<number> {
    const reservedAt = this.#clock.now();
    const wait = this.reserve(path);
    if (wait <= 0) return 0;
    await this.#sleep(wait);
    // A late wake-up means the token was really spent later than booked: shift the bucket by
    // the lateness so the next request keeps its distance from this one, not from the booking.
    const late = this.#clock.now() - (reservedAt + wait);
    if (late > 0) {
      const rule = ruleFor(path, this.#rules);
      const bucket = this.#buckets.get(rule.pattern);
      if (bucket) bucket.tokens -= (late * rule.perSecond * this.#headroom) / 1000;
    }
    return wait + Math.max(0, late);
  }
}
