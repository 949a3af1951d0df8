import pino, { type DestinationStream, type Logger } from "pino";

export type { Logger };

/**
 * Paths pino blanks in every log line. Secrets are also `Secret` objects that print as
 * "[redacted]", so this is the second belt: it catches a raw header or body that slipped in.
 */
export const REDACT_PATHS = [
  "apiKey",
  "*.apiKey",
  "headers.apiKey",
  "headers.apikey",
  "headers.authorization",
  "headers.Authorization",
  "*.headers.apikey",
  "*.headers.authorization",
  "Authorization",
  "*.Authorization",
  "authorization",
  "token",
  "*.token",
  "password",
  "*.password",
  "kubeconfig",
  "*.kubeconfig",
  "signingSecret",
  "*.signingSecret",
  "botToken",
  "*.botToken",
  "appToken",
  "*.appToken",
];

/** `level` comes from the configuration (LOG_LEVEL is read in config.ts only). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { app: "palette-chatops" },
      redact: { paths: REDACT_PATHS, censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

/** A logger that drops everything, for tests that do not look at logs. */
export const silentLogger: Logger = pino({ level: "silent" });
