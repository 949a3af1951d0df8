import { CONFIG_VARIABLES } from "../config.ts";
import type { CheckLine } from "./doctor-report.ts";

/**
 * A value wrapped in a pair of quotes, `SLACK_BOT_TOKEN="xoxb-…"`: a shell strips them, but
 * `kubectl create secret --from-env-file` and `docker run --env-file` keep them inside the value,
 * so the bot then sends `"xoxb-…"` to Slack. The doctor names the quotes rather than letting the
 * token's prefix check or Slack's `invalid_auth` take the blame. Pure; never prints a value.
 */

const QUOTED = /^\s*(["'])[\s\S]*\1\s*$/;

/** Is the value a quoted string (the same quote, `"` or `'`, at both ends)? */
export function isQuoted(value: string | undefined): boolean {
  return value !== undefined && value.trim().length >= 2 && QUOTED.test(value);
}

/** The value without its surrounding quotes, for the checks that look at its shape. */
export function unquoted(value: string): string {
  return isQuoted(value) ? value.trim().slice(1, -1) : value;
}

/** The bot's own variables (docs/configuration.md) whose value carries quotes, in that order. */
export function quotedVariables(env: Record<string, string | undefined>): string[] {
  return CONFIG_VARIABLES.filter((name) => isQuoted(env[name]));
}

/** One warning naming every quoted variable, or none. */
export function quotedValueLines(env: Record<string, string | undefined>): CheckLine[] {
  const names = quotedVariables(env);
  if (names.length === 0) return [];
  const list = names.join(", ");
  const one = names.length === 1;
  return [
    {
      check: "config.quotes",
      status: "warn",
      result: `${list} ${one ? "has its" : "have their"} value inside quotes ("…" or '…'), and the quotes are part of ${one ? "it" : "them"}`,
      fix: "remove the quotes: `kubectl create secret --from-env-file` and `docker --env-file` keep them, a shell does not; write KEY=value, or use --from-literal=KEY=value",
    },
  ];
}
