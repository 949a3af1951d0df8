import { errorReply, messageReply } from "../commands/reply.ts";
import type { CommandContext, Reply, VerbSpec } from "../commands/types.ts";
import { code, escapeMrkdwn } from "../views/mrkdwn.ts";

/** `/palette login`, `whoami`, `logout`: linking a Slack user to their own Palette user. */

function identityOff(): Reply {
  return errorReply(
    "Linking is off here: this bot acts in Palette as its own service account (`IDENTITY=service`).",
    "Linking is off here: the bot acts as its service account.",
  );
}

export const loginVerb: VerbSpec = {
  name: "login",
  usage: "login",
  summary: "link your Palette user (a personal API key), so acting commands run as you",
  examples: ["/palette login"],
  run: async (_command, ctx) => {
    if (!ctx.identity || ctx.identity.mode === "service") return identityOff();
    return { kind: "modal", modal: "login" };
  },
};

export const whoamiVerb: VerbSpec = {
  name: "whoami",
  usage: "whoami",
  summary: "which Palette user your commands act as",
  examples: ["/palette whoami"],
  run: async (_command, ctx: CommandContext) => {
    if (!ctx.identity || ctx.identity.mode === "service") {
      return messageReply(
        {
          screen: "notice",
          data: {
            mrkdwn:
              "Commands here act in Palette as the bot's service account (`IDENTITY=service`).",
          },
        },
        "Commands act as the bot's service account.",
      );
    }
    const link = await ctx.identity.store.get(ctx.requester.userId);
    if (!link) {
      return errorReply(
        ":key: Your Slack account is not linked to a Palette user.",
        "Not linked: /palette login",
        "Run `/palette login` to link one; a kubeconfig needs it here.",
      );
    }
    const org = link.org ? ` in ${escapeMrkdwn(link.org)}` : "";
    return messageReply(
      {
        screen: "notice",
        data: {
          mrkdwn: `:bust_in_silhouette: You act in Palette as *${escapeMrkdwn(link.paletteUserName)}*${org} (user ${code(link.paletteUserUid)}), linked by API key since ${code(link.linkedAt.slice(0, 16).replace("T", " "))} UTC.`,
          hint: "`/palette logout` unlinks it and deletes the stored key.",
        },
      },
      `You act in Palette as ${link.paletteUserName}.`,
    );
  },
};

export const logoutVerb: VerbSpec = {
  name: "logout",
  usage: "logout",
  summary: "unlink your Palette user and delete the stored key",
  examples: ["/palette logout"],
  run: async (_command, ctx) => {
    if (!ctx.identity || ctx.identity.mode === "service") return identityOff();
    const link = await ctx.identity.store.get(ctx.requester.userId);
    const removed = await ctx.identity.store.remove(ctx.requester.userId);
    await ctx.audit.record({
      userId: ctx.requester.userId,
      action: "identity",
      target: link?.paletteUserUid ?? "none",
      outcome: removed ? "granted" : "failed",
      detail: JSON.stringify({ change: "unlinked" }),
    });
    return messageReply(
      {
        screen: "notice",
        data: {
          mrkdwn: removed
            ? `:wave: Unlinked${link ? ` from *${escapeMrkdwn(link.paletteUserName)}*` : ""}; the stored key is deleted.`
            : "You were not linked; nothing to delete.",
          hint: removed
            ? "The key itself still works in Palette until you revoke it there (your user menu → API keys)."
            : undefined,
        },
      },
      removed ? "Unlinked." : "You were not linked.",
    );
  },
};

export const identityVerbs: VerbSpec[] = [loginVerb, whoamiVerb, logoutVerb];
