import type { App } from "@slack/bolt";
import { scrubTokens } from "../bolt-logger.ts";
import type { SlackEdge } from "../types.ts";

/** The last net: anything a listener let through is logged here, not left as a rejection. */
export function registerErrorHandler(app: App, edge: SlackEdge): void {
  app.error(async (error) => {
    edge.logger.error(
      { code: error.code, err: { name: error.name, message: scrubTokens(error.message) } },
      "unhandled error in a Slack listener",
    );
  });
}
