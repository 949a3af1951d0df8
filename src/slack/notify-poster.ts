import { webApi } from "@slack/bolt";
import {
  classifyHttpStatus,
  classifySlackError,
  type SlackPoster,
  SlackSendError,
} from "../notify/delivery/slack-port.ts";
import type { Secret } from "../secret.ts";
import type { ChannelProbe } from "../verb-kit/types.ts";

// through Bolt, which re-exports the Web API client: one declared dependency, one version
const {
  LogLevel,
  WebAPIHTTPError,
  WebAPIPlatformError,
  WebAPIRateLimitedError,
  WebAPIRequestError,
  WebClient,
} = webApi;

/**
 * How long one notification call may take. Slack answers in well under a second; a call still
 * open after this is treated as lost (transient) and retried, so one hung connection cannot hold
 * its channel's queue.
 */
export const NOTIFY_CALL_TIMEOUT_MS = 10_000;
/** `/palette subscribe` waits on the membership probe before it answers: keep it short */
export const CHANNEL_PROBE_TIMEOUT_MS = 3_000;

export interface SlackCallOptions {
  token: Secret;
  apiUrl?: string;
  /** per call, in ms */
  timeoutMs?: number;
}

/**
 * SlackPoster over @slack/web-api. WebClient's own retries and rate-limit queueing are off: the
 * outbox sender owns retries (it must keep order per channel and survive restarts), so every
 * failure, a time-out included, comes back at once as a SlackSendError.
 */
export function createSlackPoster(options: SlackCallOptions): SlackPoster {
  const client = new WebClient(options.token.reveal(), {
    slackApiUrl: options.apiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: options.timeoutMs ?? NOTIFY_CALL_TIMEOUT_MS,
    // WebClient would print every failed attempt; the sender logs what matters, once
    logLevel: LogLevel.ERROR,
  });
  return {
    async postMessage(message) {
      try {
        const base = {
          channel: message.channel,
          text: message.text,
          blocks: message.blocks ?? [],
          unfurl_links: false,
          unfurl_media: false,
          ...(message.metadata ? { metadata: message.metadata } : {}),
        };
        const result = await client.chat.postMessage(
          message.thread_ts
            ? {
                ...base,
                thread_ts: message.thread_ts,
                reply_broadcast: message.reply_broadcast ?? false,
              }
            : base,
        );
        if (typeof result.ts !== "string") throw new SlackSendError("transient", "no_ts");
        return { ts: result.ts };
      } catch (error) {
        throw toSendError(error);
      }
    },
    async update(message) {
      try {
        await client.chat.update({
          channel: message.channel,
          ts: message.ts,
          text: message.text,
          blocks: message.blocks ?? [],
        });
      } catch (error) {
        throw toSendError(error);
      }
    },
    async ping() {
      try {
        await client.auth.test();
      } catch (error) {
        throw toSendError(error);
      }
    },
    async findPost(query) {
      try {
        return await findOwnPost(client, query);
      } catch (error) {
        throw toSendError(error);
      }
    },
  };
}

/** one page of history: Slack's advice is 200 at most (Tier 3: 50+ calls a minute) */
const LOOKUP_PAGE = 200;
/** pages read before giving up on finding the message: 4,000 messages since the attempt */
const LOOKUP_MAX_PAGES = 20;

type FindQuery = Parameters<NonNullable<SlackPoster["findPost"]>>[0];
interface HistoryMessage {
  ts?: string;
  metadata?: { event_type?: string; event_payload?: Record<string, unknown> };
}

/** same event type and every payload field equal: the bot's own message of that attempt */
function carries(message: HistoryMessage, wanted: FindQuery["metadata"]): boolean {
  const metadata = message.metadata;
  if (!metadata || metadata.event_type !== wanted.event_type) return false;
  return Object.entries(wanted.event_payload).every(
    ([field, value]) => metadata.event_payload?.[field] === value,
  );
}

/**
 * conversations.history (or conversations.replies inside a thread) from `oldestMs`, every page
 * until the message turns up; include_all_metadata so each message's metadata comes back.
 */
async function findOwnPost(
  client: InstanceType<typeof WebClient>,
  query: FindQuery,
): Promise<{ ts: string } | undefined> {
  const oldest = (Math.max(0, query.oldestMs) / 1000).toFixed(6);
  let cursor: string | undefined;
  for (let page = 0; page < LOOKUP_MAX_PAGES; page++) {
    const common = {
      channel: query.channel,
      oldest,
      inclusive: true,
      include_all_metadata: true,
      limit: LOOKUP_PAGE,
      ...(cursor ? { cursor } : {}),
    };
    const result = query.threadTs
      ? await client.conversations.replies({ ...common, ts: query.threadTs })
      : await client.conversations.history(common);
    const messages = (result.messages ?? []) as HistoryMessage[];
    const hit = messages.find(
      (message) =>
        typeof message.ts === "string" &&
        message.ts !== query.threadTs &&
        carries(message, query.metadata),
    );
    if (hit) return { ts: hit.ts! };
    cursor = result.response_metadata?.next_cursor || undefined;
    if (!result.has_more || !cursor) return undefined;
  }
  return undefined;
}

/** fetch's abort on `AbortSignal.timeout`, whether WebClient wrapped it or not */
function isTimeout(error: unknown): boolean {
  const cause = error instanceof WebAPIRequestError ? error.original : (error as Error | undefined);
  return cause instanceof Error && (cause.name === "TimeoutError" || cause.name === "AbortError");
}

export function toSendError(error: unknown): SlackSendError {
  if (error instanceof SlackSendError) return error;
  if (error instanceof WebAPIRateLimitedError) {
    return new SlackSendError("ratelimited", "ratelimited", Math.max(1, error.retryAfter) * 1000);
  }
  if (error instanceof WebAPIPlatformError) {
    const code = String(error.data.error);
    return new SlackSendError(classifySlackError(code), code);
  }
  if (error instanceof WebAPIHTTPError) {
    if (error.statusCode === 429) {
      const seconds = Number(error.headers["retry-after"] ?? "1");
      return new SlackSendError(
        "ratelimited",
        "http_429",
        (Number.isFinite(seconds) ? seconds : 1) * 1000,
      );
    }
    return new SlackSendError(classifyHttpStatus(error.statusCode), `http_${error.statusCode}`);
  }
  if (isTimeout(error)) return new SlackSendError("transient", "timeout");
  if (error instanceof WebAPIRequestError) return new SlackSendError("transient", "network");
  return new SlackSendError("transient", error instanceof Error ? error.name : "unknown");
}

/**
 * `ChannelProbe` (src/verb-kit/types.ts) over conversations.info: `/palette subscribe` warns when
 * the bot is not in the channel. A private channel the bot is not in answers channel_not_found.
 * No answer in time means "cannot tell", like any other failure.
 */
export function createChannelProbe(options: SlackCallOptions): ChannelProbe {
  const client = new WebClient(options.token.reveal(), {
    slackApiUrl: options.apiUrl,
    retryConfig: { retries: 1 },
    timeout: options.timeoutMs ?? CHANNEL_PROBE_TIMEOUT_MS,
    logLevel: LogLevel.ERROR,
  });
  return {
    async isMember(channelId) {
      // DMs and the console have no membership to check
      if (!/^[CG][A-Z0-9]+$/.test(channelId)) return undefined;
      try {
        const result = await client.conversations.info({ channel: channelId });
        const member = result.channel?.is_member;
        return typeof member === "boolean" ? member : undefined;
      } catch (error) {
        if (error instanceof WebAPIPlatformError && error.data.error === "channel_not_found") {
          return false;
        }
        return undefined;
      }
    },
  };
}
