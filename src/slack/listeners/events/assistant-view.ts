import { type App, Assistant } from "@slack/bolt";
import type { SlackEdge } from "../../types.ts";
import { answerMessage } from "./message-to-bot.ts";

/** What a new assistant thread offers, each a question the reads answer. */
export const SUGGESTED_PROMPTS = [
  { title: "Unhealthy clusters", message: "Which clusters are unhealthy right now?" },
  { title: "Risks", message: "What risks does the radar see (certificates, repaves, backups)?" },
  { title: "Open alerts", message: "Which alerts are open?" },
  { title: "Freezes", message: "Are any change freezes in force?" },
];

/**
 * Slack's assistant view (the AI app split view): suggested prompts when a thread starts, then
 * each message is answered as a DM to the bot would be: a command stays a command, anything else
 * is a question for the assistant, with "reading Palette…" in the status line meanwhile and the
 * question as the thread's title. Registered only when the assistant is on.
 */
export function registerAssistantView(app: App, edge: SlackEdge): void {
  if (!edge.assistant) return;
  app.assistant(
    new Assistant({
      // the bot keeps what it needs itself (its turns, server-side); Slack's context is not read
      threadContextStore: { get: async () => ({}), save: async () => {} },
      threadStarted: async ({ setSuggestedPrompts, logger }) => {
        await setSuggestedPrompts({
          title: "Ask about your Palette clusters, or type a command",
          prompts: SUGGESTED_PROMPTS,
        }).catch((error: unknown) => logger.warn(`suggested prompts not set: ${String(error)}`));
      },
      userMessage: async ({ event, body, client, context, setStatus, setTitle }) => {
        await answerMessage(edge, {
          event,
          body,
          client,
          botUserId: context.botUserId,
          direct: true,
          assistantView: { setStatus: (status) => setStatus(status), setTitle },
        });
      },
    }),
  );
}
