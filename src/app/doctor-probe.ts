import type { Clock } from "../clock.ts";
import type { CheckLine } from "./doctor-report.ts";

/**
 * What the doctor's checks share: the HTTP client and the clock (injected, so tests can skew
 * the clock or count calls), and the bound on each call: a hung Slack, Palette or database
 * makes its line fail after `timeoutMs` instead of hanging the doctor (and a `helm test` pod).
 */
export interface Probe {
  fetch: typeof fetch;
  clock: Clock;
  /** the longest one call may take */
  timeoutMs: number;
}

export type Answer<T> = { ok: true; value: T } | { ok: false; reason: string };

/** A server's `Date` header and when this process read it (epoch ms of the injected clock). */
export interface ServerDate {
  server: number;
  receivedAt: number;
}

/** Runs `work` with an abort signal; past `probe.timeoutMs` the answer is a time-out. */
export async function bounded<T>(
  probe: Probe,
  what: string,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<Answer<T>> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<Answer<T>>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve({ ok: false, reason: `no answer within ${probe.timeoutMs} ms` });
    }, probe.timeoutMs);
  });
  const attempt = work(controller.signal).then(
    (value): Answer<T> => ({ ok: true, value }),
    (error: unknown): Answer<T> => ({ ok: false, reason: reasonOf(error, what) }),
  );
  try {
    return await Promise.race([attempt, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The system's reason (ECONNREFUSED, ENOTFOUND…) rather than fetch's bare "fetch failed". */
export function reasonOf(error: unknown, what: string): string {
  if (!(error instanceof Error)) return `${what} failed`;
  const cause = (error as { cause?: unknown }).cause;
  const code =
    (cause as { code?: unknown } | undefined)?.code ?? (error as { code?: unknown }).code;
  if (typeof code === "string" && code.length > 0) {
    const host = (cause as { hostname?: unknown } | undefined)?.hostname;
    return typeof host === "string" ? `${code} (${host})` : code;
  }
  // fetch's own refusals (a port it will not use, a bad URL) say why only in the cause
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
}

/** Beyond this the clock is worth a look (leases are 15 s; Date headers have 1 s steps). */
export const SKEW_WARN_MS = 10_000;
/** Slack refuses a signed request more than five minutes from its own time. */
export const SKEW_FAIL_HTTP_MS = 5 * 60_000;

/** One clock line from a server's Date header. Pure. */
export function skewLine(
  check: string,
  server: string,
  date: ServerDate | undefined,
  options: { httpMode: boolean },
): CheckLine {
  if (!date) {
    return {
      check,
      status: "skip",
      result: `not checked: ${server} gave no Date header (or did not answer)`,
    };
  }
  const skew = date.receivedAt - date.server;
  // a Date header is truncated to the second: up to 1 s behind is no skew at all
  const off = skew >= 0 && skew < 1_000 ? 0 : skew;
  const seconds = Math.round(Math.abs(off) / 1000);
  const side = off > 0 ? "ahead of" : "behind";
  const said = off === 0 ? `agrees with ${server}'s` : `is ${seconds} s ${side} ${server}'s`;
  const fix =
    "synchronise the host's clock (NTP / chrony on the node); leader leases and Slack's request signatures rely on it";
  if (options.httpMode && check === "clock.slack" && Math.abs(off) > SKEW_FAIL_HTTP_MS) {
    return {
      check,
      status: "fail",
      result: `this clock ${said} Date: Slack refuses signed requests more than 5 minutes off`,
      fix,
    };
  }
  if (Math.abs(off) > SKEW_WARN_MS) {
    return { check, status: "warn", result: `this clock ${said} Date`, fix };
  }
  return { check, status: "pass", result: `this clock ${said} Date (within 10 s)` };
}
