import type { App } from "@slack/bolt";
import type { SlackEdge } from "../../types.ts";
import { registerAppHomeOpened } from "./app-home-opened.ts";
import { registerAssistantView } from "./assistant-view.ts";
import { registerLinkShared } from "./link-shared.ts";
import { registerAppMention, registerDirectMessage } from "./message-to-bot.ts";

/** Events API listeners. The App Home is on when the wiring gives its data sources. */
export function register(app: App, edge: SlackEdge): void {
  if (edge.home) registerAppHomeOpened(app, edge.home);
  // before the DM listener: a message in an assistant thread is the assistant's, not a DM's
  registerAssistantView(app, edge);
  registerAppMention(app, edge);
  registerDirectMessage(app, edge);
  registerLinkShared(app, edge);
}
