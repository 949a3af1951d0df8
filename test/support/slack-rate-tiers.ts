/**
 * Slack's rate limits as the fake Slack (test/support/fake-slack.ts) applies them: a token bucket
 * per Web API method (per method and channel for `chat.postMessage`), refilled at the method's
 * tier rate against an injected clock. Pure apart from the buckets it keeps.
 *
 * Slack's tiers (docs.slack.dev/apis/web-api/rate-limits): Tier 1 1+/min, Tier 2 20+/min,
 * Tier 3 50+/min, Tier 4 100+/min, each "allowing occasional bursts"; the fake lets a whole
 * minute's worth through at once and then refills at the tier's rate. `chat.postMessage` is
 * special: "generally 1 message per second to a specific channel", with short bursts; the fake
 * allows a burst of {@link POST_MESSAGE_BURST} per channel, then one a second.
 */

export interface Tier {
  /** requests a minute at the steady rate */
  perMinute: number;
  /** how many may go at once before the rate applies */
  burst: number;
}

const tier = (perMinute: number): Tier => ({ perMinute, burst: perMinute });

export const POST_MESSAGE_BURST = 4;

/** each method's tier as Slack's method pages list it; a method not named here is Tier 3 */
export const METHOD_TIERS: Record<string, Tier> = {
  "auth.test": tier(100),
  "chat.postMessage": { perMinute: 60, burst: POST_MESSAGE_BURST },
  "chat.update": tier(50),
  "chat.postEphemeral": tier(100),
  "chat.delete": tier(50),
  "chat.unfurl": tier(50),
  "chat.getPermalink": tier(100),
  "conversations.info": tier(50),
  "conversations.open": tier(50),
  "files.getUploadURLExternal": tier(20),
  "files.completeUploadExternal": tier(20),
  "usergroups.users.list": tier(20),
  "users.info": tier(100),
  "users.lookupByEmail": tier(50),
  "views.open": tier(100),
  "views.update": tier(100),
  "views.push": tier(100),
  "views.publish": tier(100),
};

const DEFAULT_TIER = tier(50);

/** methods Slack does not meter this way (a response_url is limited per URL, not per minute) */
const UNMETERED = new Set(["response"]);

interface Bucket {
  tokens: number;
  at: number;
}

export interface RateVerdict {
  allowed: boolean;
  /** whole seconds until a request would pass, as Slack's `Retry-After` says */
  retryAfterSeconds: number;
}

export class RateTiers {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number) {}

  /** the bucket a call draws from: the method, and the channel for chat.postMessage */
  static keyOf(method: string, body: Record<string, unknown>): string {
    return method === "chat.postMessage" ? `${method}:${String(body.channel ?? "")}` : method;
  }

  take(method: string, body: Record<string, unknown>): RateVerdict {
    if (UNMETERED.has(method)) return { allowed: true, retryAfterSeconds: 0 };
    const limit = METHOD_TIERS[method] ?? DEFAULT_TIER;
    const key = RateTiers.keyOf(method, body);
    const now = this.now();
    const perMs = limit.perMinute / 60_000;
    const bucket = this.buckets.get(key) ?? { tokens: limit.burst, at: now };
    bucket.tokens = Math.min(limit.burst, bucket.tokens + Math.max(0, now - bucket.at) * perMs);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true, retryAfterSeconds: 0 };
    }
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)),
    };
  }

  reset(): void {
    this.buckets.clear();
  }
}
