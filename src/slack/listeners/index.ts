import type { App } from "@slack/bolt";
import { retryDedupe } from "../dedupe.ts";
import { homeTeamOnly } from "../home-team.ts";
import type { SlackEdge } from "../types.ts";
import * as actions from "./actions/index.ts";
import * as commands from "./commands/index.ts";
import { registerErrorHandler } from "./errors.ts";
import * as events from "./events/index.ts";
import * as options from "./options/index.ts";
import * as shortcuts from "./shortcuts/index.ts";
import * as views from "./views/index.ts";

/**
 * Every listener of the Slack edge, registered in one place: one folder per kind of Slack request,
 * one file per listener, as Slack's bolt-ts starter template lays them out.
 */
export function registerListeners(app: App, edge: SlackEdge): void {
  // Slack retries a request it thinks went unanswered; the first delivery already did the work
  app.use(retryDedupe(edge.commandDeps.clock, edge.logger));
  if (edge.slack.homeTeamId) app.use(homeTeamOnly(edge.slack.homeTeamId, edge.logger));
  registerErrorHandler(app, edge);
  for (const kind of [commands, actions, views, options, shortcuts, events]) {
    kind.register(app, edge);
  }
}
