import type { PaletteErrorKind } from "./errors.ts";

/** Plain counters of what the client did; src/http/metrics turns them into Prometheus series. */
export interface PaletteClientStats {
  /** HTTP requests sent (retries and auth calls included), by rate-limit prefix */
  calls: Record<string, number>;
  /** requests sent again after a retryable failure */
  retries: number;
  /** 429 answers seen */
  rateLimited: number;
  /** successful logins (first, after a 401, after a failed refresh) */
  logins: number;
  loginFailures: number;
  /** successful token refreshes */
  refreshes: number;
  refreshFailures: number;
  /** re-logins forced by a 401 */
  reauthentications: number;
  /** calls that ended in an error, by kind (schema errors as `schema`) */
  failures: Partial<Record<PaletteErrorKind | "schema", number>>;
  /** total time spent waiting for the client-side rate limiter, ms */
  throttledMs: number;
}

export function emptyStats(): PaletteClientStats {
  return {
    calls: {},
    retries: 0,
    rateLimited: 0,
    logins: 0,
    loginFailures: 0,
    refreshes: 0,
    refreshFailures: 0,
    reauthentications: 0,
    failures: {},
    throttledMs: 0,
  };
}

export function copyStats(stats: PaletteClientStats): PaletteClientStats {
  return { ...stats, calls: { ...stats.calls }, failures: { ...stats.failures } };
}

/** Hook for metrics: one event per request sent, retry, login and refresh. */
export type PaletteClientEvent =
  | {
      type: "request";
      method: string;
      prefix: string;
      /** `METHOD /path`, credentials masked */
      endpoint: string;
      /** 0 when no answer came */
      status: number;
      durationMs: number;
      /** time the rate limiter held this request back */
      waitedMs: number;
    }
  | {
      type: "retry";
      prefix: string;
      endpoint: string;
      attempt: number;
      delayMs: number;
      reason: string;
    }
  | { type: "login"; ok: boolean; reason: string }
  | { type: "refresh"; ok: boolean };
