import type { KnownBlock } from "@slack/types";
import type { MessageReply, Reply } from "../../src/commands/types.ts";

/** Every text of a reply's blocks, joined: what a test greps for. */
export function blocksText(blocks: readonly KnownBlock[]): string {
  return JSON.stringify(blocks, (key, value) => (key === "type" ? undefined : value)).replace(
    /\\n/g,
    "\n",
  );
}

export function asMessage(reply: Reply): MessageReply {
  if (reply.kind !== "message") throw new Error(`expected a message reply, got ${reply.kind}`);
  return reply;
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
