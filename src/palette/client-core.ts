import type { z } from "zod";
import { type Clock, systemClock } from "../clock.ts";
import type { PaletteCredentials } from "../config.ts";
import type { Logger } from "../log.ts";
import type { Scope } from "./api.ts";
import { serviceAccountKeeper } from "./client-session.ts";
import { describeEndpoint, errorFromException, errorFromResponse } from "./error-map.ts";
import { PaletteError, PaletteSchemaError } from "./errors.ts";
import {
  createUndiciTransport,
  type Transport,
  type TransportOptions,
  type WireRequest,
  type WireResponse,
} from "./http.ts";
import { RequestPacer, realSleep, type Sleep } from "./limiter.ts";
import { nextPageToken } from "./paging.ts";
import { parseBody, parseJson } from "./parse.ts";
import {
  requestGate,
  requestLastCheck,
  requestPriority,
  withoutRequestChecks,
} from "./priority.ts";
import { prefixLabel, ruleFor } from "./rate-limits.ts";
import {
  type BackoffOptions,
  DEFAULT_BACKOFF,
  isRetryable,
  MAX_RETRY_AFTER_MS,
  parseRetryAfter,
  type RequestClass,
  retryDelay,
} from "./retry.ts";
import {
  copyStats,
  emptyStats,
  type PaletteClientEvent,
  type PaletteClientStats,
} from "./stats.ts";

/**
 * How the Palette client talks to Palette, whatever it asks: the transport, the credential
 * (API key, or a service account's token kept fresh by client-session.ts), pacing in priority lanes at Palette's
 * limits, bounded retries, errors mapped to PaletteError, JSON parsed against a schema, and
 * `listmeta.continue` paging. Apart from the resource modules (client-*.ts) so each of those
 * says only which request a method sends and what the answer means.
 */

export interface PaletteClientOptions {
  /** e.g. https://api.spectrocloud.com (a trailing slash and a path prefix are fine) */
  baseUrl: string;
  credentials: PaletteCredentials;
  logger: Logger;
  /** drives the rate limiter; default the system clock */
  clock?: Clock;
  /** how the limiter and the backoff wait; default setTimeout. Tests pass a recorder. */
  sleep?: Sleep;
  /** node-cron expression of the token refresh; default every 10 minutes */
  tokenRefreshSchedule?: string;
  /** retries after the first try, for retryable failures; default 3 */
  retries?: number;
  /** pace requests at Palette's documented limits; default true */
  rateLimit?: boolean;
  connectTimeoutMs?: number;
  bodyTimeoutMs?: number;
  /** the undici pool's settings (connections, time-outs); the two fields above win */
  dispatcherOptions?: TransportOptions;
  backoff?: Partial<BackoffOptions>;
  onEvent?: (event: PaletteClientEvent) => void;
  /** replaces the undici pool (unit tests of the call logic) */
  transport?: Transport;
  /** jitter source; default Math.random */
  random?: () => number;
}

export interface CallSpec {
  method: WireRequest["method"];
  path: string;
  query?: Record<string, string | number | undefined>;
  scope?: Scope;
  body?: unknown;
  accept?: string;
  requestClass?: RequestClass;
  /** auth calls carry no credential header and never trigger a re-login */
  anonymous?: boolean;
  /** an auth call's own token: the refresh sends the token it refreshes, as the Go SDK does */
  token?: string;
  /** overrides the client's retry bound for this call */
  retries?: number;
}

/** What a resource module gets to send its requests with. */
export interface ClientCore {
  /** a read or create answered with JSON, parsed against `schema` */
  call<S extends z.ZodType>(spec: CallSpec, schema: S): Promise<z.infer<S>>;
  /**
   * A change (day-2): sent once. Not idempotent if another change landed between, so only a
   * 429 or 503 (Palette did not take it) is tried again, as a create is.
   */
  write(spec: Omit<CallSpec, "requestClass">): Promise<void>;
  /** the raw exchange (bytes, deletes, answers parsed by hand); failures are not counted */
  exchange(spec: CallSpec): Promise<WireResponse>;
  /** runs `work`, counting its failure in the stats before passing it on */
  counted<T>(work: () => Promise<T>): Promise<T>;
  /** every page of a `listmeta.continue` list */
  allPages<T>(
    fetchPage: (continueToken: string | undefined) => Promise<{ items: T[]; continue?: string }>,
  ): Promise<T[]>;
  close(): Promise<void>;
  stats(): PaletteClientStats;
}

/** A path segment, escaped. */
export const seg = (value: string): string => encodeURIComponent(value);

/** Palette's `listmeta.continue`: empty or null means the last page. */
export const nextToken = (value: string | null | undefined): string | undefined =>
  value || undefined;

/** The body of an answer parsed against `schema`, errors naming `endpoint`. */
export function parseResponse<S extends z.ZodType>(
  response: WireResponse,
  schema: S,
  endpoint: string,
): z.infer<S> {
  return parseBody(schema, parseJson(response.body.toString("utf8"), endpoint), endpoint);
}

function withQuery(path: string, query: CallSpec["query"]): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== "") params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** a request's last check (requestLastCheck) refused it: its reason, passed to the caller as is */
class CallerRefused extends Error {
  constructor(readonly reason: unknown) {
    super("the caller's last check refused the request");
  }
}

export function createClientCore(options: PaletteClientOptions): ClientCore {
  const clock = options.clock ?? systemClock;
  const sleep = options.sleep ?? realSleep;
  const retries = Math.max(0, options.retries ?? 3);
  const backoff: BackoffOptions = { ...DEFAULT_BACKOFF, ...options.backoff };
  const random = options.random ?? Math.random;
  const logger = options.logger;
  const onEvent = options.onEvent ?? (() => {});
  const limiter = options.rateLimit === false ? undefined : new RequestPacer({ clock, sleep });
  const transport =
    options.transport ??
    createUndiciTransport(options.baseUrl, {
      ...options.dispatcherOptions,
      connectTimeoutMs: options.connectTimeoutMs ?? options.dispatcherOptions?.connectTimeoutMs,
      bodyTimeoutMs: options.bodyTimeoutMs ?? options.dispatcherOptions?.bodyTimeoutMs,
    });
  const counters = emptyStats();
  const credentials = options.credentials;

  const emit = (event: PaletteClientEvent): void => {
    try {
      onEvent(event);
    } catch (error) {
      logger.warn({ err: error }, "palette client onEvent hook threw");
    }
  };

  const countFailure = (error: unknown): void => {
    const key =
      error instanceof PaletteError
        ? error.kind
        : error instanceof PaletteSchemaError
          ? "schema"
          : undefined;
    if (key) counters.failures[key] = (counters.failures[key] ?? 0) + 1;
  };

  /** One HTTP exchange, paced; a transport exception becomes a PaletteError. */
  async function sendOnce(request: WireRequest, endpoint: string): Promise<WireResponse> {
    const rule = ruleFor(request.path);
    const prefix = prefixLabel(rule);
    const waitedMs = limiter ? await limiter.acquire(request.path, requestPriority()) : 0;
    counters.throttledMs += waitedMs;
    // the caller's last word after the pacer's wait (a change's claim still fresh enough to send)
    const lastCheck = requestLastCheck();
    if (lastCheck) {
      try {
        await lastCheck();
      } catch (error) {
        throw new CallerRefused(error);
      }
    }
    counters.calls[prefix] = (counters.calls[prefix] ?? 0) + 1;
    const started = performance.now();
    let status = 0;
    try {
      const response = await transport.send(request);
      status = response.status;
      if (status === 429) counters.rateLimited++;
      return response;
    } catch (error) {
      throw errorFromException(error, endpoint);
    } finally {
      emit({
        type: "request",
        method: request.method,
        prefix,
        endpoint,
        status,
        durationMs: performance.now() - started,
        waitedMs,
      });
    }
  }

  async function credentialHeaders(
    spec: CallSpec,
  ): Promise<{ headers: Record<string, string>; token?: string }> {
    if (spec.anonymous) return { headers: spec.token ? { Authorization: spec.token } : {} };
    if (credentials.kind === "apiKey") return { headers: { apiKey: credentials.apiKey.reveal() } };
    const token = await withoutRequestChecks(() => keeper!.token());
    return { headers: { Authorization: token }, token };
  }

  /** A call with pacing, credentials, one re-login on 401 and bounded retries. */
  async function exchange(spec: CallSpec): Promise<WireResponse> {
    const path = withQuery(spec.path, spec.query);
    const endpoint = describeEndpoint(spec.method, spec.path);
    const requestClass = spec.requestClass ?? "read";
    const bound = spec.retries ?? retries;
    let reauthenticated = false;
    let attempt = 0;
    let sentBefore = false;
    for (;;) {
      // the caller's own budget (the radar's): each request, a retry included, is booked there,
      // and a gate that throws (the radar stopping) sends nothing more
      await requestGate()?.();
      const { headers: auth, token } = await credentialHeaders(spec);
      const headers: Record<string, string> = {
        Accept: spec.accept ?? "application/json",
        "User-Agent": "palette-chatops",
        ...auth,
      };
      if (spec.scope?.projectUid) headers.ProjectUid = spec.scope.projectUid;
      let body: string | undefined;
      if (spec.body !== undefined) {
        body = JSON.stringify(spec.body);
        headers["Content-Type"] = "application/json";
      }
      let failure: PaletteError;
      let retryAfterMs: number | undefined;
      try {
        const response = await sendOnce({ method: spec.method, path, headers, body }, endpoint);
        if (response.status >= 200 && response.status < 300) return response;
        // A delete whose earlier attempt may have gone through finds nothing left: done.
        if (requestClass === "delete" && sentBefore && response.status === 404) return response;
        if (response.status === 401 && token !== undefined && !reauthenticated && keeper) {
          reauthenticated = true;
          counters.reauthentications++;
          await withoutRequestChecks(() => keeper.reauthenticate(token));
          continue;
        }
        failure = errorFromResponse(response.status, response.body.toString("utf8"), endpoint);
        retryAfterMs = parseRetryAfter(response.headers["retry-after"], clock.now());
      } catch (error) {
        if (error instanceof PaletteSchemaError) throw error;
        // the caller's own refusal: nothing went out, and it is the caller's error to handle
        if (error instanceof CallerRefused) throw error.reason;
        failure = errorFromException(error, endpoint);
      }
      sentBefore = true;
      const canRetry =
        attempt < bound &&
        isRetryable(failure, requestClass) &&
        (retryAfterMs === undefined || retryAfterMs <= MAX_RETRY_AFTER_MS);
      if (!canRetry) throw failure;
      const delayMs = retryDelay(attempt, retryAfterMs, backoff, random);
      attempt++;
      counters.retries++;
      emit({
        type: "retry",
        prefix: prefixLabel(ruleFor(path)),
        endpoint,
        attempt,
        delayMs,
        reason: failure.kind,
      });
      logger.warn(
        { endpoint, status: failure.status, kind: failure.kind, attempt, delayMs },
        "palette call failed, retrying",
      );
      await sleep(delayMs);
    }
  }

  async function counted<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      countFailure(error);
      throw error;
    }
  }

  const call = <S extends z.ZodType>(spec: CallSpec, schema: S): Promise<z.infer<S>> =>
    counted(async () =>
      parseResponse(await exchange(spec), schema, describeEndpoint(spec.method, spec.path)),
    );

  const write = (spec: Omit<CallSpec, "requestClass">): Promise<void> =>
    counted(async () => {
      await exchange({ ...spec, requestClass: "create" });
    });

  async function allPages<T>(
    fetchPage: (continueToken: string | undefined) => Promise<{ items: T[]; continue?: string }>,
  ): Promise<T[]> {
    const all: T[] = [];
    const seen = new Set<string>();
    let next: string | undefined;
    for (let page = 0; ; page++) {
      const result = await fetchPage(next);
      all.push(...result.items);
      next = nextPageToken(result.continue, seen, page, "paged");
      if (!next) return all;
    }
  }

  const keeper =
    credentials.kind === "serviceAccount"
      ? serviceAccountKeeper({
          credentials,
          logger,
          clock,
          schedule: options.tokenRefreshSchedule,
          counters,
          emit,
          call,
        })
      : undefined;
  keeper?.start();

  return {
    call,
    write,
    exchange,
    counted,
    allPages,
    async close() {
      await keeper?.stop();
      await transport.close();
    },
    stats: () => copyStats(counters),
  };
}
