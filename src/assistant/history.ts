import type { ModelMessage } from "ai";
import type { AssistantTurn } from "../store/assistant-turns.ts";

/**
 * A follow-up's earlier turns as the model's messages (issue 36 item 1). Pure: the asker's own
 * stored turns in, messages out.
 *
 * Only the person's words are a `user` message. What an earlier turn read from Palette goes back
 * as the result of a tool call, the role the model is told is quoted data and never an
 * instruction, exactly as a read of this question is; an event message saying "ignore previous
 * instructions" stays data in a follow-up too. Other people's turns are not given at all (the
 * store returns the asker's only).
 */

/** the name of the replayed tool call; not a tool the model is offered */
export const EARLIER_READS_TOOL = "earlier_reads";

export function historyMessages(
  turns: readonly AssistantTurn[],
  readChars: number,
): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (const turn of turns) {
    messages.push({ role: "user", content: turn.question });
    if (turn.readText !== "") {
      const toolCallId = `earlier-${turn.id}`;
      messages.push({
        role: "assistant",
        content: [{ type: "tool-call", toolCallId, toolName: EARLIER_READS_TOOL, input: {} }],
      });
      messages.push({
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId,
            toolName: EARLIER_READS_TOOL,
            output: {
              type: "json",
              value: { quotedPaletteData: turn.readText.slice(-readChars) },
            },
          },
        ],
      });
    }
    messages.push({ role: "assistant", content: turn.answer });
  }
  return messages;
}

/**
 * The asker's latest turns whose messages fit (issue 36 item 7): the oldest are left out one by
 * one until `fits` says the first step's prompt is within the budget, so a long conversation is
 * answered from its recent turns instead of refused as over the budget. Pure.
 */
export function fitHistory(
  turns: readonly AssistantTurn[],
  readChars: number,
  fits: (messages: ModelMessage[]) => boolean,
): { turns: AssistantTurn[]; messages: ModelMessage[] } {
  for (let start = 0; start < turns.length; start++) {
    const kept = turns.slice(start);
    const messages = historyMessages(kept, readChars);
    if (fits(messages)) return { turns: kept, messages };
  }
  return { turns: [], messages: [] };
}
