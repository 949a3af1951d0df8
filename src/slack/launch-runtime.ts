import type { App } from "@slack/bolt";
import type { CommandDeps } from "../commands/types.ts";
import { LaunchTracker } from "../launch/watch.ts";
import { InFlight } from "./in-flight.ts";
import { slackCardSink } from "./launch-card-sink.ts";
import { registerProviderAction } from "./listeners/actions/launch-provider.ts";
import { registerLaunchOptions } from "./listeners/options/launch-field.ts";
import { registerLaunchShortcut } from "./listeners/shortcuts/launch-cluster.ts";
import { registerLaunchSubmit } from "./listeners/views/launch-submit.ts";
import { openLaunchModal } from "./open-launch-modal.ts";
import type { SlackEdge } from "./types.ts";

export { LAUNCH_SHORTCUT } from "./listeners/shortcuts/launch-cluster.ts";
export type { LaunchModalContext } from "./open-launch-modal.ts";
export { openLaunchModal } from "./open-launch-modal.ts";

export const OPEN_IN_PALETTE_ACTION = "launch_open_in_palette";

/** how long a shutdown waits for launches still being submitted to Palette */
export const DRAIN_CAP_MS = 5_000;

export interface LaunchHandle {
  /**
   * follows launched clusters; call `tracker.start(scheduler)` once the app runs, and
   * `await tracker.stop()` on exit (it waits for a check in progress)
   */
  tracker: LaunchTracker;
  /**
   * On shutdown, after the Slack app stopped taking requests and before the store closes:
   * waits (at most `capMs`, default 5 s) for modal submissions still talking to Palette.
   */
  drain(capMs?: number): Promise<void>;
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
  const inFlight = new InFlight();
  registerLaunchSubmit(app, deps, tracker, inFlight);
  // a link button still sends block_actions; acknowledge it so Slack shows no warning
  app.action(OPEN_IN_PALETTE_ACTION, async ({ ack }) => {
    await ack();
  });
  return {
    tracker,
    async drain(capMs = DRAIN_CAP_MS) {
      const pending = inFlight.size;
      if (pending === 0) return;
      if (!(await inFlight.drain(capMs))) {
        deps.logger.warn(
          { pending: inFlight.size, capMs },
          "launch submissions still running at shutdown; their outcome may not be recorded",
        );
      }
    },
  };
}
