import { actingFor } from "../identity/acting.ts";
import { errorReply } from "../verb-kit/reply.ts";
import type { VerbSpec } from "../verb-kit/types.ts";
import { escapeMrkdwn } from "../views/mrkdwn.ts";
import { checkLaunchPermission } from "./permission.ts";

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
    const permission = await checkLaunchPermission(ctx, ctx.requester.userId, "modal");
    if (!permission.allowed) {
      return errorReply(
        escapeMrkdwn(permission.refusal),
        permission.refusal,
        permission.hint ? escapeMrkdwn(permission.hint) : undefined,
      );
    }
    // IDENTITY=linked: the launch will run as the person, so an unlinked one learns it now,
    // before filling in the form
    if (
      ctx.identity &&
      ctx.identity.mode !== "service" &&
      ctx.identity.method === "key" &&
      !(await ctx.identity.store.get(ctx.requester.userId))
    ) {
      const acting = await actingFor(ctx.requester, ctx.identity);
      if (acting.kind === "refused") return acting.reply;
    }
    return { kind: "modal", modal: "launch" };
  },
};
