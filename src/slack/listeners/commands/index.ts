import type { App } from "@slack/bolt";
import type { SlackEdge } from "../../types.ts";
import { registerPaletteCommand } from "./palette.ts";

/** Slash commands. */
export function register(app: App, edge: SlackEdge): void {
  registerPaletteCommand(app, edge);
}
