import type { App } from "@slack/bolt";
import { retryDedupe } from "./dedupe.ts";
import { registerErrorHandler } from "./listeners/error-handler.ts";
import { registerLinkButton } from "./listeners/link-button.ts";
import { registerPaletteCommand } from "./listeners/palette-command.ts";
import { registerRunCommandAction } from "./listeners/run-command-action.ts";
import type { SlackEdge } from "./types.ts";

/** Every listener of the Slack edge, then the extra groups (launch, App Home) given in deps. */
export function registerListeners(app: App, edge: SlackEdge): void {
  app.use(retryDedupe(edge.commandDeps.clock, edge.logger));
  registerErrorHandler(app, edge);
  registerPaletteCommand(app, edge);
  registerRunCommandAction(app, edge);
  registerLinkButton(app);
  for (const register of edge.register ?? []) register(app, edge);
}
