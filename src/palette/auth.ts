import cron, { type ScheduledTask } from "node-cron";
import { type Clock, systemClock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { PaletteError } from "./errors.ts";

/**
 * Keeps a service account's Palette token fresh. Palette tokens live 15 minutes; a node-cron
 * timer refreshes them (default every 10 minutes), a failed refresh falls back to a full
 * login, and a 401 on any call triggers one re-login shared by every call that saw it.
 * The token itself is never logged or put into an error.
 */

export interface TokenSource {
  /** POST /v1/auth/authenticate → token */
  login(): Promise<string>;
  /** GET /v1/auth/refresh/{token}, the token also in Authorization → new token */
  refresh(token: string): Promise<string>;
}

export interface TokenKeeperOptions {
  source: TokenSource;
  logger: Logger;
  /** node-cron expression; default every 10 minutes */
  schedule?: string;
  onEvent?: (event: TokenEvent) => void;
  /** what the login backoff is measured on; default the system clock */
  clock?: Clock;
  /** first wait after a failed login, doubled at each further failure up to `maxMs` */
  loginBackoff?: { baseMs: number; maxMs: number };
}

/**
 * After a failed login the next one waits 5 s, then 10 s, 20 s… up to 5 minutes: a revoked
 * credential must not be tried on every command and poll (identity providers lock accounts
 * that fail too often), and meanwhile callers get the last refusal at once instead of a wait.
 */
export const DEFAULT_LOGIN_BACKOFF = { baseMs: 5_000, maxMs: 5 * 60_000 };

export type TokenEvent =
  | { type: "login"; ok: boolean; reason: LoginReason }
  | { type: "refresh"; ok: boolean };

export type LoginReason = "first" | "unauthorized" | "refresh_failed";

export const DEFAULT_TOKEN_REFRESH_SCHEDULE = "*/10 * * * *";

function kindOf(error: unknown): string {
  return error instanceof PaletteError ? error.kind : "unexpected";
}

export class TokenKeeper {
  readonly #source: TokenSource;
  readonly #logger: Logger;
  readonly #schedule: string;
  readonly #onEvent: (event: TokenEvent) => void;
  #token: string | undefined;
  /** the one login or refresh under way; every caller that needs a token awaits it */
  #pending: Promise<string> | undefined;
  #task: ScheduledTask | undefined;
  readonly #clock: Clock;
  readonly #backoff: { baseMs: number; maxMs: number };
  /** failed logins in a row, and when the next may be tried, with the refusal to repeat till then */
  #failures = 0;
  #nextLoginAt = 0;
  #lastRefusal: unknown;

  constructor(options: TokenKeeperOptions) {
    this.#clock = options.clock ?? systemClock;
    this.#backoff = options.loginBackoff ?? DEFAULT_LOGIN_BACKOFF;
    this.#source = options.source;
    this.#logger = options.logger;
    this.#schedule = options.schedule ?? DEFAULT_TOKEN_REFRESH_SCHEDULE;
    this.#onEvent = options.onEvent ?? (() => {});
    if (!cron.validate(this.#schedule)) {
      throw new Error(
        `TOKEN_REFRESH_SCHEDULE is not a valid node-cron expression: ${this.#schedule}`,
      );
    }
  }

  /** Starts the refresh timer. */
  start(): void {
    if (this.#task) return;
    this.#task = cron.schedule(
      this.#schedule,
      async () => {
        await this.refreshNow();
      },
      { name: "palette-token-refresh", noOverlap: true },
    );
  }

  async stop(): Promise<void> {
    const task = this.#task;
    this.#task = undefined;
    if (task) await task.destroy();
  }

  /** The current token, logging in first if there is none. */
  token(): Promise<string> {
    if (this.#pending) return this.#pending;
    if (this.#token !== undefined) return Promise.resolve(this.#token);
    return this.#login("first");
  }

  /**
   * Called when a request made with `staleToken` got a 401. Concurrent callers share one
   * login; a caller whose token was already replaced just gets the new one.
   */
  reauthenticate(staleToken: string): Promise<string> {
    if (this.#pending) return this.#pending;
    if (this.#token !== undefined && this.#token !== staleToken)
      return Promise.resolve(this.#token);
    this.#logger.warn("palette token rejected (401), logging in again");
    return this.#login("unauthorized");
  }

  /** The timer's job: swap the token for a fresh one, or log in again if that fails. */
  async refreshNow(): Promise<void> {
    if (this.#pending) {
      await this.#pending.catch(() => undefined);
      return;
    }
    const current = this.#token;
    // Nothing to refresh before the first call: the first call logs in.
    if (current === undefined) return;
    const attempt = this.#source.refresh(current).then(
      (fresh) => {
        this.#token = fresh;
        this.#onEvent({ type: "refresh", ok: true });
        this.#logger.info("palette token refreshed");
        return fresh;
      },
      (error: unknown) => {
        this.#onEvent({ type: "refresh", ok: false });
        this.#logger.warn(
          { reason: kindOf(error) },
          "palette token refresh failed, logging in again",
        );
        return this.#source.login().then(
          (fresh) => this.#accept(fresh, "refresh_failed"),
          (loginError: unknown) => this.#reject(loginError, "refresh_failed"),
        );
      },
    );
    await this.#track(attempt).catch(() => undefined);
  }

  #login(reason: LoginReason): Promise<string> {
    if (this.#failures > 0 && this.#clock.now() < this.#nextLoginAt) {
      return Promise.reject(this.#lastRefusal);
    }
    return this.#track(
      this.#source.login().then(
        (fresh) => this.#accept(fresh, reason),
        (error: unknown) => this.#reject(error, reason),
      ),
    );
  }

  #track(attempt: Promise<string>): Promise<string> {
    const pending = attempt.finally(() => {
      if (this.#pending === pending) this.#pending = undefined;
    });
    this.#pending = pending;
    return pending;
  }

  #accept(fresh: string, reason: LoginReason): string {
    this.#token = fresh;
    this.#failures = 0;
    this.#onEvent({ type: "login", ok: true, reason });
    this.#logger.info({ reason }, "palette login succeeded");
    return fresh;
  }

  #reject(error: unknown, reason: LoginReason): never {
    this.#token = undefined;
    this.#failures += 1;
    const waitMs = Math.min(
      this.#backoff.maxMs,
      this.#backoff.baseMs * 2 ** Math.min(this.#failures - 1, 30),
    );
    this.#nextLoginAt = this.#clock.now() + waitMs;
    this.#lastRefusal = error;
    this.#onEvent({ type: "login", ok: false, reason });
    this.#logger.error(
      { reason, kind: kindOf(error), failures: this.#failures, nextLoginInMs: waitMs },
      "palette login failed; the next login waits",
    );
    throw error;
  }
}
