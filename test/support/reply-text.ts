import type { KnownBlock } from "@slack/types";
import type { MessageReply, Reply } from "../../src/verb-kit/types.ts";
import { replyBlocks } from "../../src/views/reply.ts";

/** Every text of a reply's blocks, joined: what a test greps for. */
export function blocksText(blocks: readonly KnownBlock[]): string {
  return JSON.stringify(blocks, (key, value) => (key === "type" ? undefined : value)).replace(
    /\\n/g,
    "\n",
  );
}

/** A message reply with its view rendered, as the Slack edge would send it. */
export type RenderedReply = MessageReply & { blocks: KnownBlock[] };

export function rendered(reply: MessageReply): RenderedReply {
  return { ...reply, blocks: replyBlocks(reply.view) };
}

export function asMessage(reply: Reply): RenderedReply {
  if (reply.kind !== "message") throw new Error(`expected a message reply, got ${reply.kind}`);
  return rendered(reply);
}

/** Values of every button in the reply, in order. */
export function buttonValues(blocks: readonly KnownBlock[]): string[] {
  const values: string[] = [];
  for (const block of blocks) {
    if (block.type !== "actions") continue;
    for (const element of block.elements) {
      if (element.type === "button" && element.value) values.push(element.value);
    }
  }
  return values;
}
