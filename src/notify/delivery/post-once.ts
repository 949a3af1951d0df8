import { randomBytes } from "node:crypto";
import type { Logger } from "../../log.ts";
import { PostAttemptStore } from "../../store/post-attempts.ts";
import type { SqlDb, SqlExecutor } from "../../store/sql.ts";
import { type PostMetadata, type SlackPoster, SlackSendError } from "./slack-port.ts";

/** the metadata `event_type` of every message the bot posts once (issue 37 item 1) */
export const POST_ONCE_EVENT_TYPE = "palette_chatops_outbox";
/**
 * How far before its marker a message is looked for: the marker is committed before the post,
 * so Slack's ts is later by its clock; the margin covers a database clock behind Slack's.
 */
export const LOOKUP_MARGIN_MS = 5 * 60_000;
/**
 * An earlier attempt younger than this (by the database's clock) may still be on its way: Slack
 * has not shown it yet, so a look-up would miss it and a re-post would make two. The poster's
 * call time-out (10 s) and a margin: another sender (a replica whose lease clock ran ahead, a
 * follower's round) waits until the earlier call has surely ended.
 */
export const EARLIER_ATTEMPT_SETTLES_MS = 15_000;
/**
 * How long a marker a crash left behind is kept (the lease holder's retention round prunes it
 * after): far longer than any row waits to be tried again (the outbox's retries and pauses, a
 * change card's eight tries of up to 5 minutes), and a look-up reads at most 20 pages anyway.
 */
export const POST_ATTEMPT_KEEP_MS = 7 * 86_400_000;
/** the code of "wait `retryAfterMs`: an earlier attempt may still land"; no failed attempt */
export const EARLIER_ATTEMPT_IN_FLIGHT = "earlier_attempt_in_flight";
/** after Slack refused the look-up itself (no history scope), how long before asking again */
const LOOKUP_REFUSED_RETRY_MS = 10 * 60_000;

/** Slack codes that say the bot may not read this history: it posts at least once instead */
const LOOKUP_REFUSALS = new Set([
  "missing_scope",
  "not_allowed_token_type",
  "no_permission",
  "access_denied",
  "not_in_channel",
  "channel_not_found",
  "thread_not_found",
]);

/** what a call that got no answer from Slack ends with: it may still land */
const UNANSWERED = new Set(["timeout", "network", "unknown", "AbortError", "TimeoutError"]);
/** keys remembered as answered, at most (the oldest forgotten first) */
const ANSWERED_KEPT = 10_000;

export type PostMessage = Omit<Parameters<SlackPoster["postMessage"]>[0], "metadata">;

export interface PostOnceOptions {
  db: SqlDb;
  slack: SlackPoster;
  logger: Logger;
  /** the sender's fence: a deposed replica commits no marker and so posts nothing */
  fence?: (tx: SqlExecutor) => Promise<void>;
  /** the process's clock, only to space out look-ups Slack refused (markers use the database's) */
  now?: () => number;
  /** see EARLIER_ATTEMPT_SETTLES_MS; tests of a sender in one process may shorten it */
  settlesMs?: number;
}

export interface PostOnce {
  /**
   * Posts `message` unless an earlier attempt under `key` already reached Slack: then that
   * message's ts, `found: true`. The caller records the ts as if it had just posted, and clears
   * the marker (`settled`) in that same transaction.
   */
  post(key: string, message: PostMessage): Promise<{ ts: string; found: boolean }>;
  /** drops the key's marker, inside the transaction that records the message as sent */
  settled(tx: SqlExecutor, key: string): Promise<void>;
}

/**
 * "Post once" for every message the bot must show exactly once (notifications, cards, thread
 * lines, change cards, risk notices, roll-ups). Slack's `chat.postMessage` has no idempotency
 * key (`client_msg_id` is not one), so a post Slack took but whose answer never arrived (a kill,
 * a time-out) looks failed. Before each post a marker (a random token, the database's time) is
 * committed; the message carries the token in its metadata. A marker found at the next attempt
 * means an earlier attempt may have landed: the channel (or the thread) is searched from the
 * marker's time for that token, and a hit is the message, not sent again.
 *
 * Without the history scopes Slack refuses the search: the message is posted (at least once,
 * as before the markers), with one warning per process, and never held up.
 */
export function createPostOnce(options: PostOnceOptions): PostOnce {
  const { db, slack, logger } = options;
  const now = options.now ?? Date.now;
  const settlesMs = options.settlesMs ?? EARLIER_ATTEMPT_SETTLES_MS;
  const attempts = (tx: SqlExecutor) => new PostAttemptStore(tx, db.dialect);
  let refusedUntil = Number.NEGATIVE_INFINITY;
  /**
   * keys whose last call from this process got Slack's answer (an error it chose): that call is
   * over, so the next attempt may look at once. A time-out or a lost connection is not an answer.
   */
  const answered = new Set<string>();
  let warned = false;

  const metadataOf = (key: string, token: string): PostMetadata => ({
    event_type: POST_ONCE_EVENT_TYPE,
    event_payload: { row: key, token },
  });

  async function lookUp(key: string, message: PostMessage): Promise<string | undefined> {
    if (!slack.findPost || now() < refusedUntil) return undefined;
    const earlier = await attempts(db).get(key);
    // no earlier attempt, or one at another message of the row (a thread line of a card since gone)
    if (!earlier || earlier.channel !== message.channel) return undefined;
    if ((earlier.threadTs ?? "") !== (message.thread_ts ?? "")) return undefined;
    if (earlier.ageMs < settlesMs && !answered.has(key)) {
      // not now: the earlier call may still land; the caller waits until it surely has ended
      throw new SlackSendError("transient", EARLIER_ATTEMPT_IN_FLIGHT, settlesMs - earlier.ageMs);
    }
    try {
      const found = await slack.findPost({
        channel: message.channel,
        threadTs: message.thread_ts,
        oldestMs: earlier.atMs - LOOKUP_MARGIN_MS,
        metadata: metadataOf(key, earlier.token),
      });
      if (found) {
        logger.info(
          { channel: message.channel, ts: found.ts, key },
          "an earlier attempt reached Slack; not posting it again",
        );
      }
      return found?.ts;
    } catch (error) {
      if (!(error instanceof SlackSendError) || !LOOKUP_REFUSALS.has(error.code)) throw error;
      if (error.code === "missing_scope" || error.kind === "workspace") {
        refusedUntil = now() + LOOKUP_REFUSED_RETRY_MS;
        if (!warned) {
          warned = true;
          logger.warn(
            { code: error.code, channel: message.channel },
            "Slack refuses the bot its own channel history (channels:history, groups:history, im:history): a message whose answer was lost may show twice; add the scopes and reinstall the app for exactly once",
          );
        }
      }
      return undefined;
    }
  }

  return {
    async post(key, message) {
      const ts = await lookUp(key, message);
      if (ts !== undefined) return { ts, found: true };
      const token = randomBytes(9).toString("base64url");
      await db.transaction(async (tx) => {
        await options.fence?.(tx);
        await attempts(tx).mark({
          key,
          channel: message.channel,
          threadTs: message.thread_ts,
          token,
        });
      });
      try {
        const result = await slack.postMessage({ ...message, metadata: metadataOf(key, token) });
        answered.delete(key);
        return { ts: result.ts, found: false };
      } catch (error) {
        if (error instanceof SlackSendError && !UNANSWERED.has(error.code)) {
          // Slack answered: a refusal (nothing posted) or its own failure (the call is over)
          answered.add(key);
          if (answered.size > ANSWERED_KEPT) answered.delete(answered.values().next().value!);
        } else {
          answered.delete(key);
        }
        throw error;
      }
    },
    settled: (tx, key) => attempts(tx).clear(key),
  };
}
