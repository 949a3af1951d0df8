import type { App } from "@slack/bolt";
import { buildAppHome } from "../../../views/app-home.ts";
import { type HomeDeps, homeInput } from "../../home-input.ts";

/** `app_home_opened` → `views.publish` of the user's home tab. */
export function registerAppHomeOpened(app: App, deps: HomeDeps): void {
  app.event("app_home_opened", async ({ event, client }) => {
    // The event also fires for the Messages tab, where a home view would be wasted work.
    if (event.tab !== "home") return;
    const view = buildAppHome(await homeInput(event.user, deps));
    try {
      // counted with every other Slack call by the app's client (src/slack/call-counter.ts)
      await client.views.publish({ user_id: event.user, view });
    } catch (error) {
      deps.logger.error({ err: error, user: event.user }, "app home: views.publish failed");
    }
  });
}
