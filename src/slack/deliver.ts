import type { RespondArguments } from "@slack/bolt";
import type { Logger } from "../log.ts";
import type { ChangePlan } from "../model/change.ts";
import type { AuditLog } from "../store/audit.ts";
import type { FileReply, MessageReply, Reply } from "../verb-kit/types.ts";
import { reviewChangeData } from "../views/change.ts";
import { replyBlocks } from "../views/reply.ts";
import { sendFileToDm } from "./file-upload.ts";
import { describeSlackError } from "./slack-errors.ts";
import type { CommandTarget, SlackHooks } from "./types.ts";

export interface DeliveryDeps {
  logger: Logger;
  audit: AuditLog;
  hooks: SlackHooks;
}

/** A one-line ephemeral answer (errors, refusals). Escaping is the caller's job. */
export function notice(text: string): MessageReply {
  return {
    kind: "message",
    visibility: "ephemeral",
    text,
    view: { screen: "notice", data: { mrkdwn: text } },
  };
}

function reviewMessage(plan: ChangePlan, why: string): MessageReply {
  return {
    kind: "message",
    visibility: "ephemeral",
    text: `${why} Review the change and confirm it.`,
    view: { screen: "changeChoice", data: reviewChangeData(plan, why) },
  };
}

export function toRespondArguments(reply: MessageReply): RespondArguments {
  return {
    response_type: reply.visibility,
    replace_original: false,
    text: reply.text,
    blocks: replyBlocks(reply.view),
  };
}

/**
 * Shows a message to the requester: in the conversation they asked in (a mention's thread, a
 * DM), else through the response_url, else (App Home buttons have neither) in their DM with the
 * bot. Failures are logged, never thrown: there is no one left to tell.
 */
async function showMessage(
  reply: MessageReply,
  target: CommandTarget,
  deps: DeliveryDeps,
): Promise<void> {
  try {
    if (target.conversation) {
      await target.client.chat.postMessage({
        channel: target.conversation.channel,
        ...(target.conversation.threadTs ? { thread_ts: target.conversation.threadTs } : {}),
        text: reply.text,
        blocks: replyBlocks(reply.view),
      });
      return;
    }
    if (target.respond) {
      await target.respond(toRespondArguments(reply));
      return;
    }
    const dm = await target.client.conversations.open({ users: target.requester.userId });
    const channel = dm.channel?.id;
    if (!channel) throw new Error("conversations.open answered without a channel");
    await target.client.chat.postMessage({
      channel,
      text: reply.text,
      blocks: replyBlocks(reply.view),
    });
  } catch (error) {
    const failure = describeSlackError(error);
    deps.logger.warn(
      { slackError: failure.code, userId: target.requester.userId },
      "could not deliver an answer to Slack",
    );
  }
}

async function deliverFile(reply: FileReply, target: CommandTarget, deps: DeliveryDeps) {
  try {
    await sendFileToDm(target.client, {
      userId: target.requester.userId,
      fileName: reply.fileName,
      title: reply.title,
      content: reply.content,
    });
  } catch (error) {
    await disposeOf(reply);
    const failure = describeSlackError(error);
    deps.logger.warn(
      { slackError: failure.code, userId: target.requester.userId, file: reply.fileName },
      "could not send a file to the requester's DM",
    );
    await deps.audit.record({
      userId: target.requester.userId,
      action: reply.auditAs ?? "kubeconfig",
      target: reply.fileName.replace(/\.kubeconfig$/, ""),
      outcome: "failed",
      detail: JSON.stringify({ slackError: failure.code }),
    });
    await showMessage(
      notice(`:warning: The file could not be sent to your direct messages. ${failure.message}`),
      target,
      deps,
    );
    return;
  }
  await disposeOf(reply);
  // in a thread everyone reads, the line says where the file went without naming more
  const shown =
    target.conversation && !target.conversation.channel.startsWith("D")
      ? notice(`:lock: <@${target.requester.userId}>, I sent it to you privately, in our DM.`)
      : reply.notice;
  await showMessage(shown, target, deps);
}

/** Delivers any Reply. Never throws. */
export async function deliverReply(
  reply: Reply,
  target: CommandTarget,
  deps: DeliveryDeps,
): Promise<void> {
  switch (reply.kind) {
    case "message":
      await showMessage(reply, target, deps);
      return;
    case "file":
      await deliverFile(reply, target, deps);
      return;
    case "modal": {
      const onModal = deps.hooks.onModal;
      if (!onModal) {
        await showMessage(notice(`The ${reply.modal} form is not available yet.`), target, deps);
        return;
      }
      if (reply.modal === "change" && !target.triggerId) {
        // a mention or DM brings no trigger_id: a button's click will bring one
        await showMessage(
          reviewMessage(reply.plan, "A confirmation opens from a button, not from a message."),
          target,
          deps,
        );
        return;
      }
      if (!target.triggerId) {
        // a message (mention, DM) brings no trigger_id, and Slack opens a modal only with one
        await showMessage(
          notice(
            `The ${reply.modal} form opens from \`/palette ${reply.modal}\` or the shortcut menu, not from a message.`,
          ),
          target,
          deps,
        );
        return;
      }
      try {
        await onModal(reply, {
          triggerId: target.triggerId,
          requester: target.requester,
          client: target.client,
          respond: target.respond,
          logger: deps.logger,
        });
      } catch (error) {
        const failure = describeSlackError(error);
        deps.logger.warn({ slackError: failure.code }, "could not open a modal");
        // a change's confirmation that could not open (Palette was slow and Slack's trigger_id,
        // good for 3 s, ran out): the same change, one click away, with a fresh trigger
        await showMessage(
          reply.modal === "change"
            ? reviewMessage(reply.plan, ":hourglass: The confirmation could not open in time.")
            : notice(`:warning: The form could not open. ${failure.message}`),
          target,
          deps,
        );
      }
      return;
    }
  }
}

/** a spooled export's temporary file goes once it is sent or has failed */
async function disposeOf(reply: FileReply): Promise<void> {
  if (!Buffer.isBuffer(reply.content)) await reply.content.dispose().catch(() => undefined);
}
