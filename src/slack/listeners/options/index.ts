import type { App } from "@slack/bolt";
import type { SlackEdge } from "../../types.ts";
import { registerLaunchOptions } from "./launch-field.ts";

/** Options of external selects (`block_suggestion`). */
export function register(app: App, edge: SlackEdge): void {
  registerLaunchOptions(app, edge.commandDeps, edge.optionsBudgetMs);
}
