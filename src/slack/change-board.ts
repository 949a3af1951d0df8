import type { webApi } from "@slack/bolt";
import type { KnownBlock } from "@slack/types";
import type { ChangeBoard } from "../changes/board.ts";
import { EARLIER_ATTEMPT_IN_FLIGHT, type PostOnce } from "../notify/delivery/post-once.ts";
import { SlackSendError } from "../notify/delivery/slack-port.ts";
import {
  approvalCardBlocks,
  approvalCardText,
  changeCardBlocks,
  changeCardText,
} from "../views/change.ts";
import { sendFileToDm } from "./file-upload.ts";
import { describeSlackError } from "./slack-errors.ts";

/** Slack's refusals that say "not now": worth the same call again later */
const PASSING = new Set([
  "ratelimited",
  "network",
  "internal_error",
  "fatal_error",
  "service_unavailable",
  "request_timeout",
  "unknown",
]);

/**
 * A change's cards and private lines through the Slack Web API. `once` posts a change card once
 * (marker, metadata, look-up before a re-post), through a poster without client retries: a
 * retry of chat.postMessage is what re-posts a message Slack took but answered late (issue 37
 * item 2). Without it (tests of other things), cards go through `client`.
 */
export function slackChangeBoard(client: webApi.WebClient, once?: PostOnce): ChangeBoard {
  const post = async (channel: string, text: string, blocks: KnownBlock[], key?: string) => {
    if (once && key) {
      const { ts } = await once.post(`${key}:${channel}`, { channel, text, blocks });
      return { channel, ts };
    }
    const posted = await client.chat.postMessage({ channel, text, blocks });
    return posted.ts ? { channel: posted.channel ?? channel, ts: String(posted.ts) } : undefined;
  };
  const update = async (channel: string, ts: string, text: string, blocks: KnownBlock[]) => {
    await client.chat.update({ channel, ts, text, blocks });
  };
  // the bot may not be in the channel the change was asked in: its card and lines then go to the
  // person's DM with the bot (posting to a user ID), as a launch card does
  const orDm = async <T>(inChannel: () => Promise<T>, inDm: () => Promise<T>) => {
    try {
      return await inChannel();
    } catch (error) {
      const code =
        error instanceof SlackSendError
          ? error.code
          : (error as { data?: { error?: string } }).data?.error;
      if (code !== "not_in_channel" && code !== "channel_not_found") throw error;
      return inDm();
    }
  };
  return {
    post: (channel, card, key) =>
      orDm(
        () => post(channel, changeCardText(card), changeCardBlocks(card), key),
        () => post(card.requester, changeCardText(card), changeCardBlocks(card), key),
      ),
    update: (channel, ts, card) =>
      update(channel, ts, changeCardText(card), changeCardBlocks(card)),
    postApproval: (channel, card) =>
      orDm(
        () => post(channel, approvalCardText(card), approvalCardBlocks(card)),
        async () => {
          const posted = await post(
            card.requester,
            approvalCardText(card),
            approvalCardBlocks(card),
          );
          return posted ? { ...posted, inDm: true } : undefined;
        },
      ),
    updateApproval: (channel, ts, card) =>
      update(channel, ts, approvalCardText(card), approvalCardBlocks(card)),
    async sendFile(userId, fileName, content) {
      await sendFileToDm(client, { userId, fileName, title: fileName, content });
    },
    refusal(error) {
      if (error instanceof SlackSendError) {
        // the post-once poster's own error: it already says what kind of refusal it is
        const passing = error.kind === "transient" || error.kind === "ratelimited";
        return {
          code: error.code,
          retryAfterMs: error.retryAfterMs,
          lasting: !passing,
          deferral: error.code === EARLIER_ATTEMPT_IN_FLIGHT,
        };
      }
      const { code } = describeSlackError(error);
      const retryAfter = (error as { retryAfter?: unknown }).retryAfter;
      return {
        code,
        // rejectRateLimitedCalls (src/slack/app.ts) hands the 429 over with Slack's Retry-After
        retryAfterMs: typeof retryAfter === "number" ? retryAfter * 1000 : undefined,
        lasting: !PASSING.has(code) && !/^http_5\d\d$/.test(code),
      };
    },
    async tell(channel, userId, mrkdwn, text) {
      const blocks: KnownBlock[] = [
        { type: "section", text: { type: "mrkdwn", text: mrkdwn.slice(0, 3000) } },
      ];
      await orDm(
        () => client.chat.postEphemeral({ channel, user: userId, text, blocks }),
        () => client.chat.postMessage({ channel: userId, text, blocks }),
      );
    },
  };
}
