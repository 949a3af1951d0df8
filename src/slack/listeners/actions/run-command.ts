import type { App } from "@slack/bolt";
import { z } from "zod";
import { RUN_COMMAND_ACTION } from "../../../model/command-text.ts";
import type { SlackEdge } from "../../types.ts";

/** Buttons whose action_id starts with RUN_COMMAND_ACTION (ids must be unique per message). */
export const RUN_COMMAND_PATTERN = new RegExp(`^${RUN_COMMAND_ACTION}`);

const buttonClick = z.object({
  user: z.object({ id: z.string().min(1), team_id: z.string().optional() }),
  trigger_id: z.string().optional(),
  channel: z.object({ id: z.string() }).optional(),
  container: z.object({ channel_id: z.string().optional() }).partial().optional(),
  team: z.object({ id: z.string() }).nullable().optional(),
  actions: z
    .array(
      z.object({
        value: z.string().optional(),
        // an "Actions…" overflow carries its command in the option picked
        selected_option: z.object({ value: z.string() }).optional(),
      }),
    )
    .min(1),
});

/**
 * A button that runs a command again (e.g. "Nodes" on a cluster card, a choice among matches),
 * or an option of a card's "Actions…" menu.
 */
export function registerRunCommandAction(app: App, edge: SlackEdge): void {
  app.action(RUN_COMMAND_PATTERN, async ({ ack, body, respond, client }) => {
    await ack();
    const parsed = buttonClick.safeParse(body);
    const action = parsed.success ? parsed.data.actions[0] : undefined;
    const text = action?.value ?? action?.selected_option?.value;
    if (!parsed.success || text === undefined) {
      edge.logger.warn("button without a command value; ignored");
      return;
    }
    const click = parsed.data;
    await edge.runCommand(text, {
      requester: {
        userId: click.user.id,
        // App Home buttons have no channel; the DM is where their answer goes
        channelId: click.channel?.id ?? click.container?.channel_id ?? "app_home",
        teamId: click.team?.id ?? click.user.team_id,
      },
      client,
      respond: "response_url" in body ? respond : undefined,
      triggerId: click.trigger_id,
    });
  });
}
