import type { App } from "@slack/bolt";
import { cardTarget, holdRefusal, muteCluster } from "../../../commands/holds.ts";
import type { CommandContext } from "../../../verb-kit/types.ts";
import { MUTE_CALLBACK_ID, MUTE_FIELDS } from "../../../views/mute-modal.ts";
import { replyBlocks } from "../../../views/reply.ts";
import { decodeMuteMetadata, readMuteForm } from "../../mute-form.ts";
import { describeSlackError } from "../../slack-errors.ts";
import type { SlackEdge } from "../../types.ts";

/**
 * The mute modal's submit: a problem shows under its field (`response_action: errors`, e.g. a
 * day already past); a good one closes the modal, stores the mute (src/commands/holds.ts edits
 * the card) and confirms to the user privately in the channel.
 */
export function registerMuteSubmit(app: App, edge: SlackEdge): void {
  app.view(MUTE_CALLBACK_ID, async ({ ack, body, view, client }) => {
    const metadata = decodeMuteMetadata(view.private_metadata);
    if (!metadata) {
      await ack({
        response_action: "errors",
        errors: {
          [MUTE_FIELDS.length]:
            "This form lost its cluster; close it and click Mute on the card again.",
        },
      });
      return;
    }
    const form = readMuteForm(view.state.values, edge.commandDeps.clock.now());
    if (!form.ok) {
      await ack({ response_action: "errors", errors: form.errors });
      return;
    }
    const userId = body.user.id;
    const ctx: CommandContext = {
      ...edge.commandDeps,
      requester: { userId, channelId: metadata.ch, teamId: body.team?.id },
    };
    const target = await cardTarget(ctx, metadata.ch, metadata.c, metadata.p);
    // asked again at submit: the permission may have changed since the form opened
    if (await holdRefusal(ctx, "mute", target)) {
      await ack({
        response_action: "errors",
        errors: {
          [MUTE_FIELDS.length]:
            `You may not mute clusters in this channel. ${edge.commandDeps.policy.grantHint("subscribe")}`.slice(
              0,
              2000,
            ),
        },
      });
      return;
    }
    await ack();
    const reply = await muteCluster(ctx, target, form.untilMs, form.reason);
    try {
      await client.chat.postEphemeral({
        channel: metadata.ch,
        user: userId,
        text: reply.text,
        blocks: replyBlocks(reply.view),
      });
    } catch (error) {
      edge.logger.warn(
        { slackError: describeSlackError(error).code, channel: metadata.ch },
        "mute confirmation not shown",
      );
    }
  });
}
