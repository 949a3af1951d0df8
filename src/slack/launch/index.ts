import type { App } from "@slack/bolt";
import type { CommandDeps } from "../../commands/types.ts";
import { LaunchTracker } from "../../launch/watch.ts";
import type { SlackEdge } from "../types.ts";
import { slackCardSink } from "./card-sink.ts";
import { openLaunchModal } from "./open.ts";
import { registerLaunchOptions } from "./options.ts";
import { registerProviderAction } from "./provider-action.ts";
import { registerLaunchShortcut } from "./shortcut.ts";
import { registerLaunchSubmit } from "./submit.ts";

export type { LaunchModalContext } from "./open.ts";
export { openLaunchModal } from "./open.ts";
export { LAUNCH_SHORTCUT } from "./shortcut.ts";

export const OPEN_IN_PALETTE_ACTION = "launch_open_in_palette";

export interface LaunchHandle {
  /** follows launched clusters; call `tracker.start(scheduler)` once the app runs, `stop()` on exit */
  tracker: LaunchTracker;
}

/**
 * Every launch listener: the `/palette launch` modal hook, the "Launch cluster" shortcut, the
 * provider switch, the look-ups, the submit, and the card's link button. Fits the Slack edge's
 * `register` list: `register: [(app, edge) => { launch = registerLaunch(app, edge) }]`.
 */
export function registerLaunch(
  app: App,
  edge:
    | Pick<SlackEdge, "commandDeps" | "hooks">
    | { commandDeps: CommandDeps; hooks?: SlackEdge["hooks"] },
): LaunchHandle {
  const deps = edge.commandDeps;
  const tracker = new LaunchTracker({
    db: deps.db,
    palette: deps.palette,
    sink: slackCardSink(app.client),
    clock: deps.clock,
    logger: deps.logger,
    consoleUrl: deps.consoleUrl,
  });
  if (edge.hooks) {
    // `/palette launch` answers with a ModalReply; the edge turns it into this call
    edge.hooks.onModal = async (reply, ctx) => {
      if (reply.modal !== "launch") return;
      await openLaunchModal(ctx.client, ctx.triggerId, { requester: ctx.requester, deps });
    };
  }
  registerLaunchShortcut(app, deps);
  registerProviderAction(app, deps);
  registerLaunchOptions(app, deps);
  registerLaunchSubmit(app, deps, tracker);
  // a link button still sends block_actions; acknowledge it so Slack shows no warning
  app.action(OPEN_IN_PALETTE_ACTION, async ({ ack }) => {
    await ack();
  });
  return { tracker };
}
