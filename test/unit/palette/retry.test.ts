import { describe, expect, it } from "vitest";
import { PaletteError, type PaletteErrorKind } from "../../../src/palette/errors.ts";
import {
  backoffDelay,
  isRetryable,
  parseRetryAfter,
  retryDelay,
} from "../../../src/palette/retry.ts";

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

const error = (kind: PaletteErrorKind, status: number) =>
  new PaletteError(kind, status, undefined, "x", undefined, "GET /v1/x");

describe("parseRetryAfter", () => {
  it("reads delta-seconds", () => {
    expect(parseRetryAfter("3", NOW)).toBe(3000);
    expect(parseRetryAfter(" 0 ", NOW)).toBe(0);
    expect(parseRetryAfter("1.5", NOW)).toBe(1500);
  });

  it("reads an HTTP date relative to now", () => {
    expect(parseRetryAfter("Thu, 01 Jan 2026 12:00:07 GMT", NOW)).toBe(7000);
    expect(parseRetryAfter("Thu, 01 Jan 2026 11:59:00 GMT", NOW)).toBe(0);
  });

  it("ignores absent or unreadable values", () => {
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter("", NOW)).toBeUndefined();
    expect(parseRetryAfter("soon", NOW)).toBeUndefined();
    expect(parseRetryAfter("-5", NOW)).toBeUndefined();
    expect(parseRetryAfter("2026-13-45", NOW)).toBeUndefined();
  });
});

describe("backoff", () => {
  const options = { baseMs: 100, maxMs: 1000 };

  it("grows exponentially under the cap, with full jitter", () => {
    const top = () => 0.999999;
    expect([0, 1, 2, 3, 4, 10].map((a) => backoffDelay(a, options, top))).toEqual([
      99, 199, 399, 799, 999, 999,
    ]);
    expect(backoffDelay(3, options, () => 0)).toBe(0);
    for (let i = 0; i < 200; i++) {
      const d = backoffDelay(2, options);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThan(400);
    }
  });

  it("prefers the server's Retry-After", () => {
    expect(retryDelay(0, 2000, options, () => 0.5)).toBe(2000);
    expect(retryDelay(1, undefined, options, () => 0.5)).toBe(100);
  });
});

describe("isRetryable", () => {
  it("retries reads on 429, 5xx, network and time-outs, not other 4xx", () => {
    expect(isRetryable(error("rate_limited", 429), "read")).toBe(true);
    expect(isRetryable(error("server", 500), "read")).toBe(true);
    expect(isRetryable(error("network", 0), "read")).toBe(true);
    expect(isRetryable(error("timeout", 0), "read")).toBe(true);
    for (const [kind, status] of [
      ["not_found", 404],
      ["unauthorized", 401],
      ["forbidden", 403],
      ["conflict", 409],
      ["bad_request", 400],
    ] as const) {
      expect(isRetryable(error(kind, status), "read")).toBe(false);
    }
  });

  it("retries a create only when Palette said it did not act", () => {
    expect(isRetryable(error("rate_limited", 429), "create")).toBe(true);
    expect(isRetryable(error("server", 503), "create")).toBe(true);
    expect(isRetryable(error("server", 500), "create")).toBe(false);
    expect(isRetryable(error("server", 504), "create")).toBe(false);
    expect(isRetryable(error("network", 0), "create")).toBe(false);
    expect(isRetryable(error("timeout", 0), "create")).toBe(false);
  });
});
