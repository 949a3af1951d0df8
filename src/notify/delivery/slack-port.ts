import type { KnownBlock } from "../../views/block-kit.ts";

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
    /** Slack message metadata: what names the message so a later attempt can find it */
    metadata?: PostMetadata;
  }): Promise<{ ts: string }>;
  update(message: {
    channel: string;
    ts: string;
    text: string;
    blocks?: KnownBlock[];
  }): Promise<void>;
  /**
   * Does Slack answer at all, with this token (`auth.test`)? The sender asks before it gives a row
   * up for good, so an outage of Slack itself never turns the whole outbox into dead letters.
   * Optional: a poster that cannot tell (the console) counts as reachable.
   */
  ping?(): Promise<void>;
  /**
   * The ts of the bot's own message carrying `metadata` with this `event_type` and exactly this
   * payload, posted at or after `oldestMs` (epoch ms) in the channel, or in the thread
   * `threadTs` names (conversations.history / conversations.replies with include_all_metadata,
   * every page); undefined when there is none. Optional: a poster that cannot look (the
   * console) posts at least once.
   */
  findPost?(query: {
    channel: string;
    threadTs?: string;
    oldestMs: number;
    metadata: PostMetadata;
  }): Promise<{ ts: string } | undefined>;
}

/** Slack message metadata as the bot sends it: flat strings, so a match is exact */
export interface PostMetadata {
  event_type: string;
  event_payload: Record<string, string>;
}

export type SlackSendErrorKind =
  /** 429: wait `retryAfterMs` */
  | "ratelimited"
  /** 5xx, network, time-out, a code we do not know: retry with backoff, up to a cap */
  | "transient"
  /**
   * Slack refuses the bot, not the message (invalid_auth, token_revoked, missing_scope…): every
   * channel would get the same answer, so the sender pauses and tries again by itself
   */
  | "workspace"
  /** the channel is closed to the bot: pause its subscriptions */
  | "channel"
  /** the card message is gone or can no longer be edited: post a new one */
  | "gone"
  /**
   * Slack refused this message for its content (invalid_blocks, msg_too_long…): retried once as
   * plain text, then set aside as a dead letter
   */
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
  "restricted_action_read_only_channel",
  "restricted_action_thread_only_channel",
  "team_access_not_granted",
]);
/** Errors about the token, the app or the workspace: no message would get through. */
const WORKSPACE_ERRORS = new Set([
  "invalid_auth",
  "not_authed",
  "account_inactive",
  "token_revoked",
  "token_expired",
  "invalid_token",
  "no_permission",
  "missing_scope",
  "not_allowed_token_type",
  "ekm_access_denied",
  "access_denied",
  "accesslimited",
  "org_login_required",
  "team_added_to_org",
  "two_factor_setup_required",
  "enterprise_is_restricted",
  "team_is_restricted",
  "method_deprecated",
  "deprecated_endpoint",
]);
/** Errors about what the message says or how it is built: plain text may still get through. */
const CONTENT_ERRORS = new Set([
  "invalid_blocks",
  "invalid_blocks_format",
  "msg_too_long",
  "no_text",
  "invalid_arguments",
  "invalid_arg_name",
  "invalid_array_arg",
  "invalid_attachments",
  "too_many_attachments",
  "invalid_metadata_format",
  "invalid_metadata_schema",
  "metadata_too_large",
  "markdown_text_conflict",
  "invalid_charset",
  "invalid_form_data",
  "invalid_json",
  "json_not_object",
  "invalid_post_type",
  "missing_post_type",
]);
const GONE_ERRORS = new Set(["message_not_found", "cant_update_message", "edit_window_closed"]);

/**
 * Slack's `error` code of an `ok: false` answer → what the sender does about it. A code not listed
 * here is retried like a transient error: the retry cap turns it into a dead letter, which
 * `/palette subscriptions retry` can send again, where calling it "rejected" would drop the row.
 */
export function classifySlackError(code: string): SlackSendErrorKind {
  if (code === "ratelimited" || code === "rate_limited") return "ratelimited";
  if (WORKSPACE_ERRORS.has(code)) return "workspace";
  if (CHANNEL_ERRORS.has(code)) return "channel";
  if (GONE_ERRORS.has(code)) return "gone";
  if (CONTENT_ERRORS.has(code)) return "rejected";
  // internal_error, fatal_error, service_unavailable, request_timeout… and any code not above
  return "transient";
}

/**
 * An HTTP status other than 200 and 429. Slack's Web API answers its own errors with 200, so these
 * come from what stands between (a proxy, a wrong SLACK_API_URL) and hit every call alike, except a
 * 400 or 413 that this request's body caused.
 */
export function classifyHttpStatus(status: number): SlackSendErrorKind {
  if (status === 429) return "ratelimited";
  if (status >= 500) return "transient";
  if (status === 400 || status === 413) return "rejected";
  return "workspace";
}
