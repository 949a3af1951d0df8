import type { App } from "@slack/bolt";
import type { SlackEdge } from "../../types.ts";
import { registerLaunchShortcut } from "./launch-cluster.ts";

/** Global and message shortcuts. */
export function register(app: App, edge: SlackEdge): void {
  registerLaunchShortcut(app, edge.commandDeps);
}
