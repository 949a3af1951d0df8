import type { webApi } from "@slack/bolt";
import type { CardSink } from "../launch/watch.ts";

/** Waits the given milliseconds; tests pass one that does not. */
export type Sleep = (ms: number) => Promise<void>;

const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Slack answered 429 (the WebClient rejects rate-limited calls at once, src/slack/app.ts) */
function retryAfterMs(error: unknown): number | undefined {
  const shape = error as { code?: string; retryAfter?: number };
  if (shape.code !== "slack_webapi_rate_limited_error") return undefined;
  return Math.max(1, shape.retryAfter ?? 1) * 1000;
}

/** at most this many tries of one card call, and no wait longer than a card can bear */
const RATE_LIMITED_TRIES = 3;
const LONGEST_WAIT_MS = 30_000;

/**
 * A card call tried again after Slack's `Retry-After` when Slack rate-limits it (about one
 * message a second in a channel): the launch's thread line mentioning the requester is sent once
 * and not again by the watcher, so a 429 would have lost it for good.
 */
async function paced<T>(sleep: Sleep, call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const wait = retryAfterMs(error);
      if (wait === undefined || attempt >= RATE_LIMITED_TRIES || wait > LONGEST_WAIT_MS)
        throw error;
      await sleep(wait);
    }
  }
}

/** Launch cards through the Slack Web API. */
export function slackCardSink(client: webApi.WebClient, sleep: Sleep = realSleep): CardSink {
  return {
    async post(channel, message, fallbackChannel) {
      try {
        const posted = await paced(sleep, () =>
          client.chat.postMessage({ channel, text: message.text, blocks: message.blocks }),
        );
        return { channel: posted.channel ?? channel, ts: String(posted.ts) };
      } catch (error) {
        // the bot may not be in the channel the command was typed in: DM the requester instead
        const code = (error as { data?: { error?: string } }).data?.error;
        if (!fallbackChannel || (code !== "not_in_channel" && code !== "channel_not_found"))
          throw error;
        const posted = await client.chat.postMessage({
          channel: fallbackChannel,
          text: message.text,
          blocks: message.blocks,
        });
        return { channel: posted.channel ?? fallbackChannel, ts: String(posted.ts) };
      }
    },
    async update(channel, ts, message) {
      await paced(sleep, () =>
        client.chat.update({ channel, ts, text: message.text, blocks: message.blocks }),
      );
    },
    async reply(channel, threadTs, text) {
      await paced(sleep, () => client.chat.postMessage({ channel, thread_ts: threadTs, text }));
    },
  };
}
