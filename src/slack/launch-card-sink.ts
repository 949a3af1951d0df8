import type { webApi } from "@slack/bolt";
import type { CardSink } from "../launch/watch.ts";

/** Launch cards through the Slack Web API. */
export function slackCardSink(client: webApi.WebClient): CardSink {
  return {
    async post(channel, message, fallbackChannel) {
      try {
        const posted = await client.chat.postMessage({
          channel,
          text: message.text,
          blocks: message.blocks,
        });
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
      await client.chat.update({ channel, ts, text: message.text, blocks: message.blocks });
    },
    async reply(channel, threadTs, text) {
      await client.chat.postMessage({ channel, thread_ts: threadTs, text });
    },
  };
}
