import type { App } from "@slack/bolt";
import type { SlackEdge } from "../../types.ts";
import { registerChangeSubmit } from "./change-submit.ts";
import { registerLaunchSubmit } from "./launch-submit.ts";
import { registerLoginSubmit } from "./login-submit.ts";
import { registerMuteSubmit } from "./mute-submit.ts";

/** Modal submissions. */
export function register(app: App, edge: SlackEdge): void {
  registerLaunchSubmit(app, edge.commandDeps, edge.launch.tracker, edge.launch.inFlight);
  registerMuteSubmit(app, edge);
  registerLoginSubmit(app, edge);
  registerChangeSubmit(app, edge);
}
