import { type Logger as BoltLogger, LogLevel } from "@slack/bolt";
import type { Logger } from "../log.ts";

/** Bot, user, app and config tokens, in case one appears inside a Bolt or WebClient log string. */
const TOKEN = /\bx(?:ox[a-z]|app)-[A-Za-z0-9-]+/g;

/**
 * Socket Mode logs whole envelopes at debug: their payload carries the verification `token` and
 * `response_url`s (each lets anyone post into the channel for 30 minutes).
 */
const SECRET_FIELD = /"(token|response_url)":"[^"]*"/g;
/** The one-time `ticket` in the WebSocket URL that apps.connections.open returns. */
const TICKET = /([?&]ticket=)[^&\s"']+/g;

export function scrubTokens(text: string): string {
  return text
    .replace(TOKEN, "[redacted]")
    .replace(SECRET_FIELD, '"$1":"[redacted]"')
    .replace(TICKET, "$1[redacted]");
}

function render(parts: unknown[]): { message: string; err?: { name: string; message: string } } {
  let err: { name: string; message: string } | undefined;
  const words = parts.map((part) => {
    if (part instanceof Error) {
      err ??= { name: part.name, message: scrubTokens(part.message) };
      return scrubTokens(part.message);
    }
    if (typeof part === "string") return scrubTokens(part);
    try {
      return scrubTokens(JSON.stringify(part));
    } catch {
      return String(part);
    }
  });
  return { message: words.join(" "), err };
}

const PINO_TO_BOLT: Record<string, LogLevel> = {
  trace: LogLevel.DEBUG,
  debug: LogLevel.DEBUG,
  info: LogLevel.INFO,
  warn: LogLevel.WARN,
  error: LogLevel.ERROR,
  fatal: LogLevel.ERROR,
  silent: LogLevel.ERROR,
};

/**
 * Bolt's and the WebClient's logger, written to our pino logger (component "bolt") at the same
 * levels, with tokens scrubbed from the text. The level follows pino's, so the one configured level rules both.
 */
export function boltLogger(logger: Logger): BoltLogger {
  let child = logger.child({ component: "bolt" });
  const write =
    (level: "debug" | "info" | "warn" | "error") =>
    (...parts: unknown[]) => {
      if (!child.isLevelEnabled(level)) return;
      const { message, err } = render(parts);
      if (err) child[level]({ err }, message);
      else child[level](message);
    };
  return {
    debug: write("debug"),
    info: write("info"),
    warn: write("warn"),
    error: write("error"),
    setLevel(level) {
      child.level = level;
    },
    getLevel() {
      return PINO_TO_BOLT[child.level] ?? LogLevel.INFO;
    },
    setName(name) {
      child = logger.child({ component: name });
    },
  };
}
