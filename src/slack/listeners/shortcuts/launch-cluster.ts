import type { App } from "@slack/bolt";
import { checkLaunchPermission, refusalLine } from "../../../launch/permission.ts";
import type { CommandDeps } from "../../../verb-kit/types.ts";
import { openLaunchModal } from "../../open-launch-modal.ts";

export const LAUNCH_SHORTCUT = "launch_cluster";

/** Global shortcut "Launch cluster": same modal; the card goes to the requester's DM. */
export function registerLaunchShortcut(app: App, deps: CommandDeps): void {
  app.shortcut(LAUNCH_SHORTCUT, async ({ ack, shortcut, client }) => {
    await ack();
    const userId = shortcut.user.id;
    const permission = await checkLaunchPermission(deps, userId, "modal");
    if (!permission.allowed) {
      await client.chat
        .postMessage({ channel: userId, text: `:no_entry: ${refusalLine(permission)}` })
        .catch((error: unknown) => deps.logger.warn({ err: String(error) }, "refusal not sent"));
      return;
    }
    try {
      await openLaunchModal(client, shortcut.trigger_id, {
        requester: { userId, channelId: userId, teamId: shortcut.team?.id },
        deps,
      });
    } catch (error) {
      deps.logger.warn({ err: String(error) }, "could not open the launch modal");
    }
  });
}
