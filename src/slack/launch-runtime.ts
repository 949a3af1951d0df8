import type { webApi } from "@slack/bolt";
import { LaunchTracker } from "../launch/watch.ts";
import type { SqlExecutor } from "../store/sql.ts";
import type { CommandDeps } from "../verb-kit/types.ts";
import { InFlight } from "./in-flight.ts";
import { slackCardSink } from "./launch-card-sink.ts";

/** how long a shutdown waits for launches still being submitted to Palette */
export const DRAIN_CAP_MS = 5_000;

/** What the launch listeners share with the wiring, which starts and stops it. */
export interface LaunchRuntime {
  /**
   * follows launched clusters and posts their one card; call `tracker.start(scheduler)` once the
   * app runs (it looks at once, settling reservations an earlier run left against Palette), and
   * `await tracker.stop()` on exit (it waits for work in progress). Built here, before the app
   * takes requests: reservations older than the tracker are an earlier run's.
   */
  tracker: LaunchTracker;
  /** modal submissions still talking to Palette */
  inFlight: InFlight;
  /**
   * On shutdown, after the Slack app stopped taking requests and before the store closes:
   * waits (at most `capMs`, default 5 s) for modal submissions still talking to Palette. One
   * that ends later is never told "Not launched" unless Palette refused: a create it cannot
   * record stays reserved for the next start to look up.
   */
  drain(capMs?: number): Promise<void>;
}

export function createLaunchRuntime(
  client: webApi.WebClient,
  deps: CommandDeps,
  /** the leader lease's fence for the tracker's own rounds (issue 12) */
  fence?: (tx: SqlExecutor) => Promise<void>,
): LaunchRuntime {
  const inFlight = new InFlight();
  return {
    tracker: new LaunchTracker({
      db: deps.db,
      palette: deps.palette,
      sink: slackCardSink(client),
      clock: deps.clock,
      logger: deps.logger,
      consoleUrl: deps.consoleUrl,
      fence,
    }),
    inFlight,
    async drain(capMs = DRAIN_CAP_MS) {
      if (inFlight.size === 0) return;
      if (!(await inFlight.drain(capMs))) {
        deps.logger.warn(
          { pending: inFlight.size, capMs },
          "launch submissions still running at shutdown; the next start settles them against Palette",
        );
      }
    },
  };
}
