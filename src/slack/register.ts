import type { App } from "@slack/bolt";
import { retryDedupe } from "./dedupe.ts";
import { registerLinkButton } from "./listeners/actions/link-button.ts";
import { registerRunCommandAction } from "./listeners/actions/run-command.ts";
import { registerPaletteCommand } from "./listeners/commands/palette.ts";
import { registerErrorHandler } from "./listeners/errors.ts";
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
