import { type Logger as BoltLogger, LogLevel } from "@slack/bolt";
import type { Logger } from "../log.ts";

/** Bot, user, app and config tokens, in case one appears inside a Bolt or WebClient log string. */
const TOKEN = /\bx(?:ox[a-z]|app)-[A-Za-z0-9-]+/g;

/**
 * Socket Mode logs whole envelopes at debug: their payload carries the verification `token` and
 * `response_url`s (each lets anyone post into the channel for 30 minutes).
 */
const SECRET_FIELD = /"(token|response_url|password|api_key|apiKey|secret)":"[^"]*"/g;
/** The one-time `ticket` in the WebSocket URL that apps.connections.open returns. */
const TICKET = /([?&]ticket=)[^&\s"']+/g;
/** What is left of an envelope that is not JSON: everything from its form state on is dropped. */
const STATE_ONWARDS = /"state"\s*:\s*\{[\s\S]*/g;

/** Fields whose value is never logged, at any depth of an envelope. */
const SECRET_KEYS = new Set(["token", "response_url", "password", "api_key", "apiKey", "secret"]);

/**
 * A copy of `value` without what people typed or secrets: a form's `state` (a view submission's
 * `view.state`, a block action's `state`) holds every field's value as typed, a pasted Palette
 * API key or a password included, so it goes whole.
 */
export function redactPayload(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactPayload);
  if (value === null || typeof value !== "object") return value;
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (SECRET_KEYS.has(key)) copy[key] = "[redacted]";
    else if (key === "state" && inner !== null && typeof inner === "object") {
      copy[key] = "[redacted]";
    } else copy[key] = redactPayload(inner);
  }
  return copy;
}

/**
 * The Socket Mode client writes envelopes into its log text (`Received a message on the
 * WebSocket: {...}`, also when they do not parse): the JSON part is redacted as an object;
 * when it does not parse, everything from its `state` on is dropped.
 */
function redactEmbeddedJson(text: string): string {
  const start = text.indexOf("{");
  if (start < 0) return text;
  const end = text.lastIndexOf("}");
  for (const candidate of [text.slice(start), end > start ? text.slice(start, end + 1) : ""]) {
    if (!candidate) continue;
    try {
      const parsed: unknown = JSON.parse(candidate);
      const rest = text.slice(start + candidate.length);
      return `${text.slice(0, start)}${JSON.stringify(redactPayload(parsed))}${rest}`;
    } catch {
      // not JSON as a whole: try the next cut, then fall back to dropping the state
    }
  }
  return text.replace(STATE_ONWARDS, '"state":"[redacted]"');
}

export function scrubTokens(text: string): string {
  return redactEmbeddedJson(text)
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
      return scrubTokens(JSON.stringify(redactPayload(part)));
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
