import type { App } from "@slack/bolt";
import type { CommandDeps } from "../../../verb-kit/types.ts";
import {
  LAUNCH_CALLBACK_ID,
  launchView,
  PROVIDER_FIELD,
  providerOf,
} from "../../../views/launch-modal.ts";
import { projectsInView, readLaunchView } from "../../launch-modal-state.ts";

/**
 * Picking a provider swaps in its form (views.update with the view's hash, so a stale update
 * never overwrites a newer one), keeping every value already typed.
 */
export function registerProviderAction(app: App, deps: CommandDeps): void {
  app.action(
    { type: "block_actions", action_id: PROVIDER_FIELD },
    async ({ ack, body, client }) => {
      // acknowledge first: Slack shows an error for any unanswered action, ours or not
      await ack();
      const view = body.view;
      if (!view || view.callback_id !== LAUNCH_CALLBACK_ID) return;
      const { metadata, state } = readLaunchView(view, body.user.id);
      const provider = providerOf(state);
      if (!provider) return;
      try {
        await client.views.update({
          view_id: view.id,
          hash: view.hash,
          view: launchView({ metadata, projects: projectsInView(view.blocks), provider, state }),
        });
      } catch (error) {
        // hash_conflict: a newer update already won; anything else is logged and the old form stays
        deps.logger.info({ err: String(error) }, "launch form not updated");
      }
    },
  );
}
