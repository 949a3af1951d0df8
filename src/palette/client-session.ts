import type { z } from "zod";
import type { Clock } from "../clock.ts";
import type { PaletteCredentials } from "../config.ts";
import type { Logger } from "../log.ts";
import { TokenKeeper } from "./auth.ts";
import { userTokenSchema } from "./schemas.ts";
import type { PaletteClientEvent, PaletteClientStats } from "./stats.ts";

/**
 * A service account's session for the Palette client: the login and refresh requests the
 * TokenKeeper (auth.ts) runs, and how their outcomes count in the stats and reach the onEvent
 * hook. Apart from the core (client-core.ts) so the core reads as the path of one request and
 * this as the life of the credential it carries.
 */

/** The core's call, as the session uses it: an anonymous auth request answered with a token. */
type AuthCall = (
  spec: {
    method: "GET" | "POST";
    path: string;
    anonymous: true;
    body?: unknown;
    token?: string;
    retries?: number;
  },
  schema: typeof userTokenSchema,
) => Promise<z.infer<typeof userTokenSchema>>;

export interface SessionOptions {
  credentials: Extract<PaletteCredentials, { kind: "serviceAccount" }>;
  logger: Logger;
  clock: Clock;
  /** node-cron expression of the token refresh */
  schedule?: string;
  /** the client's counters, counted in place */
  counters: PaletteClientStats;
  emit: (event: PaletteClientEvent) => void;
  call: AuthCall;
}

/** A TokenKeeper (not started) that logs in with the service account and refreshes its token. */
export function serviceAccountKeeper(options: SessionOptions): TokenKeeper {
  const { credentials, counters, emit, call } = options;
  return new TokenKeeper({
    logger: options.logger,
    clock: options.clock,
    schedule: options.schedule,
    onEvent: (event) => {
      if (event.type === "login") {
        if (event.ok) counters.logins++;
        else counters.loginFailures++;
        emit({ type: "login", ok: event.ok, reason: event.reason });
      } else {
        if (event.ok) counters.refreshes++;
        else counters.refreshFailures++;
        emit({ type: "refresh", ok: event.ok });
      }
    },
    source: {
      login: async () =>
        (
          await call(
            {
              method: "POST",
              path: "/v1/auth/authenticate",
              anonymous: true,
              body: {
                emailId: credentials.email,
                org: credentials.org,
                password: credentials.password.reveal(),
              },
            },
            userTokenSchema,
          )
        ).Authorization,
      refresh: async (token) =>
        (
          await call(
            {
              method: "GET",
              path: `/v1/auth/refresh/${encodeURIComponent(token)}`,
              anonymous: true,
              token,
              // a failed refresh falls back to a (retried) login at once
              retries: 0,
            },
            userTokenSchema,
          )
        ).Authorization,
    },
  });
}
