import type { webApi } from "@slack/bolt";
import type { CommandDeps } from "../commands/types.ts";
import { LaunchTracker } from "../launch/watch.ts";
import { InFlight } from "./in-flight.ts";
import { slackCardSink } from "./launch-card-sink.ts";

/** how long a shutdown waits for launches still being submitted to Palette */
export const DRAIN_CAP_MS = 5_000;

/** What the launch listeners share with the wiring, which starts and stops it. */
export interface LaunchRuntime {
  /**
   * follows launched clusters; call `tracker.start(scheduler)` once the app runs, and
   * `await tracker.stop()` on exit (it waits for a check in progress)
   */
  tracker: LaunchTracker;
  /** modal submissions still talking to Palette */
  inFlight: InFlight;
  /**
   * On shutdown, after the Slack app stopped taking requests and before the store closes:
   * waits (at most `capMs`, default 5 s) for modal submissions still talking to Palette.
   */
  drain(capMs?: number): Promise<void>;
}

export function createLaunchRuntime(client: webApi.WebClient, deps: CommandDeps): LaunchRuntime {
  const inFlight = new InFlight();
  return {
    tracker: new LaunchTracker({
      db: deps.db,
      palette: deps.palette,
      sink: slackCardSink(client),
      clock: deps.clock,
      logger: deps.logger,
      consoleUrl: deps.consoleUrl,
    }),
    inFlight,
    async drain(capMs = DRAIN_CAP_MS) {
      if (inFlight.size === 0) return;
      if (!(await inFlight.drain(capMs))) {
        deps.logger.warn(
          { pending: inFlight.size, capMs },
          "launch submissions still running at shutdown; their outcome may not be recorded",
        );
      }
    },
  };
}
