import type { KnownBlock } from "../views/block-kit.ts";

/**
 * The two Slack calls the notification sender makes. `slack/notify-poster.ts` implements them over
 * @slack/web-api; the console prints instead; tests can fake them. Implementations throw
 * `SlackSendError` so the sender decides about retries in one place.
 */
export interface SlackPoster {
  postMessage(message: {
    channel: string;
    text: string;
    blocks?: KnownBlock[];
    thread_ts?: string;
    reply_broadcast?: boolean;
  }): Promise<{ ts: string }>;
  update(message: {
    channel: string;
    ts: string;
    text: string;
    blocks?: KnownBlock[];
  }): Promise<void>;
}

export type SlackSendErrorKind =
  /** 429: wait `retryAfterMs` */
  | "ratelimited"
  /** 5xx, network, Slack's internal_error: retry with backoff */
  | "transient"
  /** the channel is closed to the bot: pause its subscriptions */
  | "channel"
  /** the card message is gone or can no longer be edited: post a new one */
  | "gone"
  /** Slack refused this message for good (invalid_blocks, msg_too_long…): park it */
  | "rejected";

export class SlackSendError extends Error {
  override readonly name = "SlackSendError";

  constructor(
    readonly kind: SlackSendErrorKind,
    /** Slack's error code or the HTTP status */
    readonly code: string,
    readonly retryAfterMs?: number,
  ) {
    super(`Slack: ${code}`);
  }
}

const CHANNEL_ERRORS = new Set([
  "channel_not_found",
  "not_in_channel",
  "is_archived",
  "restricted_action",
  "team_access_not_granted",
]);
const GONE_ERRORS = new Set(["message_not_found", "cant_update_message", "edit_window_closed"]);
const TRANSIENT_ERRORS = new Set([
  "internal_error",
  "fatal_error",
  "service_unavailable",
  "request_timeout",
]);

/** Slack's `error` code of an `ok: false` answer → what the sender does about it. */
export function classifySlackError(code: string): SlackSendErrorKind {
  if (code === "ratelimited") return "ratelimited";
  if (CHANNEL_ERRORS.has(code)) return "channel";
  if (GONE_ERRORS.has(code)) return "gone";
  if (TRANSIENT_ERRORS.has(code)) return "transient";
  return "rejected";
}
