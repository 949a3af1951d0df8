import type { PaletteError } from "./errors.ts";

/**
 * When to try a failed Palette call again, and how long to wait first.
 *
 * Retried: 429, 5xx, connection resets and other network failures, time-outs. Not retried:
 * any other 4xx (the request itself is wrong; 401 is the token keeper's business, once).
 *
 * Cluster creation is the exception. A reset connection, a time-out or a 500/502/504 after
 * the body went out may mean Palette already created the cluster; sending the POST again
 * could create a second one, which costs money and confuses everyone, while failing just
 * asks the user to look and retry. So a create is retried only when Palette answered in a
 * way that says it did not act: 429 (rate-limited before handling) or 503 (not serving).
 */

export interface BackoffOptions {
  /** first delay's upper bound; default 200 ms */
  baseMs: number;
  /** no delay exceeds this, Retry-After excepted; default 5 s */
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 200, maxMs: 5_000 };

/** Retry-After waits longer than this are not honoured: the call fails as rate-limited. */
export const MAX_RETRY_AFTER_MS = 60_000;

export type RequestClass = "read" | "create" | "delete";

export function isRetryable(error: PaletteError, requestClass: RequestClass): boolean {
  if (requestClass === "create") return error.status === 429 || error.status === 503;
  switch (error.kind) {
    case "rate_limited":
    case "server":
    case "network":
    case "timeout":
      return true;
    default:
      return false;
  }
}

/**
 * `Retry-After` as milliseconds: delta-seconds (`"3"`) or an HTTP date. Undefined when the
 * header is absent or unreadable; a date in the past gives 0.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  // HTTP dates always name a weekday or month; a bare number or garbage must not parse as one.
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/**
 * Exponential backoff with full jitter (AWS architecture blog): a uniform draw from
 * [0, min(max, base·2^attempt)], so clients that failed together do not retry together.
 * `attempt` counts from 0 for the first retry.
 */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions = DEFAULT_BACKOFF,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

/** The wait before retry number `attempt`: Retry-After when the server gave one, else backoff. */
export function retryDelay(
  attempt: number,
  retryAfterMs: number | undefined,
  options: BackoffOptions = DEFAULT_BACKOFF,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return retryAfterMs;
  return backoffDelay(attempt, options, random);
}
