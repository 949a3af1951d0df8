import type { SlackPoster } from "../notify/delivery/slack-port.ts";
import { renderBlocks } from "./render.ts";

/**
 * The notification sender's Slack port for the console (`npm run demo`): each message is
 * rendered as text and written out; card edits print as "updated", thread lines indented.
 */
export function createConsolePoster(
  write: (text: string) => void = (text) => process.stdout.write(text),
): SlackPoster {
  let sequence = 0;
  const channelLabel = (channel: string) => (channel === "console" ? "" : ` #${channel}`);
  return {
    async postMessage(message) {
      sequence += 1;
      const body = message.blocks ? renderBlocks(message.blocks) : message.text;
      if (message.thread_ts) {
        const indented = body
          .split("\n")
          .map((line) => `    │ ${line}`)
          .join("\n");
        write(
          `\n  ↳ thread${channelLabel(message.channel)}${message.reply_broadcast ? " (also in channel)" : ""}\n${indented}\n`,
        );
      } else {
        write(`\n🔔 notification${channelLabel(message.channel)}\n${body}\n`);
      }
      return { ts: `${Math.floor(Date.now() / 1000)}.${String(sequence).padStart(6, "0")}` };
    },
    async update(message) {
      const body = message.blocks ? renderBlocks(message.blocks) : message.text;
      write(`\n✎ card updated${channelLabel(message.channel)}\n${body}\n`);
    },
  };
}
