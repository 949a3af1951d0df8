import type { App } from "@slack/bolt";
import type { SlackEdge } from "../../types.ts";
import { registerAcknowledgeAction } from "./acknowledge.ts";
import { registerAssistantFeedback } from "./assistant-feedback.ts";
import { registerAssistantShare } from "./assistant-share.ts";
import { registerCardHoldActions } from "./card-holds.ts";
import { registerChangeApprovalActions } from "./change-approval.ts";
import { registerIdentityHomeActions } from "./identity-home.ts";
import { registerProviderAction } from "./launch-provider.ts";
import { registerLinkButton } from "./link-button.ts";
import { registerRunCommandAction } from "./run-command.ts";

/** Button and select actions in messages, the App Home and modals. */
export function register(app: App, edge: SlackEdge): void {
  registerRunCommandAction(app, edge);
  registerLinkButton(app);
  registerProviderAction(app, edge.commandDeps);
  registerAcknowledgeAction(app, edge);
  registerCardHoldActions(app, edge);
  registerIdentityHomeActions(app, edge);
  registerChangeApprovalActions(app, edge);
  registerAssistantFeedback(app, edge);
  registerAssistantShare(app, edge);
}
