import type { App } from "@slack/bolt";
import { z } from "zod";
import { buildAppHome, HOME_LINK_ACTION, HOME_UNLINK_ACTION } from "../../../views/app-home.ts";
import { loginModal } from "../../../views/login-modal.ts";
import { homeInput } from "../../home-input.ts";
import { describeSlackError } from "../../slack-errors.ts";
import type { SlackEdge } from "../../types.ts";

const click = z.object({
  user: z.object({ id: z.string().min(1) }),
  trigger_id: z.string().optional(),
});

/**
 * The App Home's identity buttons: "Link…" opens the `/palette login` form (an App Home click
 * brings a trigger_id), "Unlink" deletes the stored key and publishes the home again.
 */
export function registerIdentityHomeActions(app: App, edge: SlackEdge): void {
  app.action(HOME_LINK_ACTION, async ({ ack, body, client }) => {
    await ack();
    const parsed = click.safeParse(body);
    const identity = edge.commandDeps.identity;
    if (!parsed.success || !parsed.data.trigger_id || !identity || identity.mode === "service") {
      return;
    }
    try {
      await client.views.open({
        trigger_id: parsed.data.trigger_id,
        view: loginModal({ consoleUrl: edge.commandDeps.consoleUrl }),
      });
    } catch (error) {
      edge.logger.warn(
        { slackError: describeSlackError(error).code },
        "could not open the login form",
      );
    }
  });

  app.action(HOME_UNLINK_ACTION, async ({ ack, body, client }) => {
    await ack();
    const parsed = click.safeParse(body);
    const identity = edge.commandDeps.identity;
    if (!parsed.success || !identity || identity.mode === "service") return;
    const userId = parsed.data.user.id;
    const link = await identity.store.get(userId);
    const removed = await identity.store.remove(userId);
    await edge.commandDeps.audit.record({
      userId,
      action: "identity",
      target: link?.paletteUserUid ?? "none",
      outcome: removed ? "granted" : "failed",
      detail: JSON.stringify({ change: "unlinked", from: "app home" }),
    });
    if (!edge.home) return;
    try {
      await client.views.publish({
        user_id: userId,
        view: buildAppHome(await homeInput(userId, edge.home)),
      });
    } catch (error) {
      edge.logger.warn(
        { slackError: describeSlackError(error).code },
        "app home: views.publish failed",
      );
    }
  });
}
