import type { App } from "@slack/bolt";
import { z } from "zod";
import { SLACK_USER_ID } from "../../../model/why.ts";
import { ASSISTANT_SHARE_ACTION, sharedAnswerBlocks } from "../../../views/assistant.ts";
import { escapeMrkdwn } from "../../../views/mrkdwn.ts";
import { describeSlackError } from "../../slack-errors.ts";
import type { SlackEdge } from "../../types.ts";

const SLACK_ID = /^[A-Z0-9]{1,32}$/;

const shareValue = z.object({
  turnId: z.number().int().positive(),
  channel: z.string().regex(SLACK_ID),
  threadTs: z
    .string()
    .regex(/^\d{1,12}\.\d{1,8}$/)
    .optional(),
  sources: z.array(z.string().max(300)).max(8),
});

const click = z.object({
  user: z.object({ id: z.string().regex(SLACK_USER_ID) }),
  actions: z.array(z.object({ value: z.string().max(2_000) })).min(1),
});

/**
 * "Share in the thread" under an assistant's answer that only its asker saw (issue 36 item 2):
 * the asker, and only the asker (the stored turn must be theirs), puts the answer in the thread
 * for everyone, as a typed read's `--share` does. The words are the stored ones, not the
 * message's, so nothing but the answer the bot gave can be posted this way.
 */
export function registerAssistantShare(app: App, edge: SlackEdge): void {
  const assistant = edge.assistant;
  if (!assistant) return;
  app.action(ASSISTANT_SHARE_ACTION, async ({ ack, body, respond, client }) => {
    await ack();
    const parsed = click.safeParse(body);
    let value: z.infer<typeof shareValue> | undefined;
    try {
      value = parsed.success
        ? shareValue.parse(JSON.parse(parsed.data.actions[0]!.value))
        : undefined;
    } catch {
      value = undefined;
    }
    if (!parsed.success || !value) {
      edge.logger.warn("assistant share of unexpected shape; ignored");
      return;
    }
    const userId = parsed.data.user.id;
    const answer = await assistant.answerToShare(value.turnId, userId).catch((error: unknown) => {
      edge.logger.warn({ err: String(error) }, "assistant answer to share not read");
      return undefined;
    });
    if (answer === undefined) {
      await respond({
        response_type: "ephemeral",
        replace_original: false,
        text: "That answer is no longer kept, or was not yours to share.",
      }).catch(() => undefined);
      return;
    }
    const blocks = sharedAnswerBlocks({ text: answer, sources: value.sources, sharedBy: userId });
    const posted = await client.chat
      .postMessage({
        channel: value.channel,
        text: escapeMrkdwn(answer).slice(0, 3_000),
        blocks,
        ...(value.threadTs ? { thread_ts: value.threadTs } : {}),
      })
      .then(() => true)
      .catch((error: unknown) => {
        edge.logger.warn({ slackError: describeSlackError(error).code }, "answer not shared");
        return false;
      });
    await edge.commandDeps.audit
      .record({
        userId,
        action: "assistant",
        target: `assistant share ${value.turnId}`,
        outcome: posted ? "granted" : "failed",
        detail: JSON.stringify({ channel: value.channel }),
      })
      .catch(() => undefined);
    await respond({
      response_type: "ephemeral",
      replace_original: false,
      text: posted ? "Shared in the thread." : "Slack did not take the answer; it was not shared.",
    }).catch(() => undefined);
  });
}
