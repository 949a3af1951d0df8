import type { VerbSpec } from "./types.ts";

const notYet = (name: string, usage: string, summary: string): VerbSpec => ({
  name,
  usage,
  summary,
  examples: [`/palette ${name}`],
  run: async () => ({
    kind: "message",
    visibility: "ephemeral",
    text: `\`/palette ${name}\` is not available yet.`,
    blocks: [
      {
        type: "section",
        text: { type: "mrkdwn", text: `\`/palette ${name}\` is not available yet.` },
      },
    ],
  }),
});

// Placeholders until the notification issue lands: they say so instead of pretending.
export const subscribeVerbs: VerbSpec[] = [
  notYet(
    "subscribe",
    "subscribe [clusters|alerts|all] [project:<uid>] [tag:<t>]",
    "this channel gets notifications",
  ),
  notYet("unsubscribe", "unsubscribe [id|all]", "stop notifications in this channel"),
  notYet("subscriptions", "subscriptions", "list this channel's subscriptions"),
];
