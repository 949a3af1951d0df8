import type { App } from "@slack/bolt";
import { z } from "zod";
import { notice, toRespondArguments } from "../../deliver.ts";
import type { SlackEdge } from "../../types.ts";

export const PALETTE_COMMAND = "/palette";

const slashCommand = z.object({
  text: z.string().default(""),
  user_id: z.string().min(1),
  channel_id: z.string().min(1),
  team_id: z.string().optional(),
  trigger_id: z.string().optional(),
});

/**
 * `/palette …`: ack at once with an empty body (nothing shows, Slack is satisfied), then run the
 * command and answer through the response_url. The answer may take as long as Palette does.
 */
export function registerPaletteCommand(app: App, edge: SlackEdge): void {
  app.command(PALETTE_COMMAND, async ({ ack, command, respond, client }) => {
    await ack();
    const parsed = slashCommand.safeParse(command);
    if (!parsed.success) {
      edge.logger.warn({ issue: parsed.error.issues[0]?.message }, "malformed slash command");
      await respond(
        toRespondArguments(notice("Slack sent an incomplete command; try again.")),
      ).catch(() => undefined);
      return;
    }
    const body = parsed.data;
    await edge.runCommand(body.text, {
      requester: { userId: body.user_id, channelId: body.channel_id, teamId: body.team_id },
      client,
      respond,
      triggerId: body.trigger_id,
    });
  });
}
