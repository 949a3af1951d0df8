import { escapeMrkdwn } from "../views/mrkdwn.ts";
import { errorReply } from "./reply.ts";
import type { VerbSpec } from "./types.ts";

/**
 * `/palette launch`: only people ALLOW_LAUNCH grants get the form; everyone else gets a clear
 * refusal (and an audit record). The form itself is the edge's business (Slack modal, console
 * prompts), so the verb answers with a ModalReply.
 */
export const launchVerb: VerbSpec = {
  name: "launch",
  usage: "launch",
  summary: "open the form that launches a cluster",
  examples: ["/palette launch"],
  run: async (_command, ctx) => {
    const { userId } = ctx.requester;
    if (!(await ctx.policy.allows(userId, "launch"))) {
      ctx.audit.record({ userId, action: "launch", target: "modal", outcome: "denied" });
      const hint = ctx.policy.grantHint("launch");
      return errorReply(
        "You are not allowed to launch clusters.",
        "You are not allowed to launch clusters.",
        hint ? escapeMrkdwn(hint) : undefined,
      );
    }
    return { kind: "modal", modal: "launch" };
  },
};
