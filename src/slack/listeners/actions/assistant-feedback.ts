import type { App } from "@slack/bolt";
import { z } from "zod";
import { ASSISTANT_FEEDBACK_ACTION } from "../../../views/assistant.ts";
import type { SlackEdge } from "../../types.ts";

const PATTERN = new RegExp(`^${ASSISTANT_FEEDBACK_ACTION}:(up|down)$`);

const click = z.object({
  user: z.object({ id: z.string().min(1) }),
  actions: z
    .array(z.object({ action_id: z.string(), value: z.string().regex(/^\d{1,15}$/) }))
    .min(1),
});

/** 👍/👎 under an assistant's answer: recorded once per person (a second vote replaces it). */
export function registerAssistantFeedback(app: App, edge: SlackEdge): void {
  const assistant = edge.assistant;
  if (!assistant) return;
  app.action(PATTERN, async ({ ack, body, respond }) => {
    await ack();
    const parsed = click.safeParse(body);
    const action = parsed.success ? parsed.data.actions[0]! : undefined;
    const vote = action ? PATTERN.exec(action.action_id)?.[1] : undefined;
    if (!parsed.success || !action || (vote !== "up" && vote !== "down")) {
      edge.logger.warn("assistant feedback of unexpected shape; ignored");
      return;
    }
    const stored = await assistant
      .feedback(Number(action.value), parsed.data.user.id, vote)
      .catch((error: unknown) => {
        edge.logger.warn({ err: String(error) }, "assistant feedback not stored");
        return false;
      });
    await respond({
      response_type: "ephemeral",
      replace_original: false,
      text: stored
        ? `Thanks: your ${vote === "up" ? "👍" : "👎"} is recorded.`
        : "That answer is no longer kept, so the vote was not recorded.",
    }).catch(() => undefined);
  });
}
