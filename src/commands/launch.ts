import type { VerbSpec } from "./types.ts";

// Placeholder until the launch issue lands: says so instead of pretending.
export const launchVerb: VerbSpec = {
  name: "launch",
  usage: "launch",
  summary: "open the form that launches a cluster",
  examples: ["/palette launch"],
  run: async () => ({
    kind: "message",
    visibility: "ephemeral",
    text: "`/palette launch` is not available yet.",
    blocks: [
      {
        type: "section",
        text: { type: "mrkdwn", text: "`/palette launch` is not available yet." },
      },
    ],
  }),
};
