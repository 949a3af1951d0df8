import { errorReply, messageReply } from "../verb-kit/reply.ts";
import type { CommandContext, Reply, VerbSpec } from "../verb-kit/types.ts";
import { code, escapeMrkdwn } from "../views/mrkdwn.ts";
import { personByEmail } from "./minted.ts";

/** `/palette login`, `whoami`, `logout`: linking a Slack user to their own Palette user. */

/** LINK_METHOD=email: there is nothing to link or unlink. */
function byEmail(): Reply {
  return messageReply(
    {
      screen: "notice",
      data: {
        mrkdwn:
          ":email: Nothing to link here: your Slack e-mail address finds your Palette user, and each command that acts gets a key of its own for a few minutes, deleted when it is done.",
        hint: "`/palette whoami` shows whom that is.",
      },
    },
    "Your Slack e-mail address finds your Palette user; nothing to link.",
  );
}

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
    if (ctx.identity.method === "email") return byEmail();
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
    if (ctx.identity.method === "email") {
      // the same lookup a command that acts makes: a member of another workspace maps to no one
      const found = await personByEmail(ctx.requester.userId, ctx.identity);
      if (found.kind === "refused") return found.reply;
      const { user } = found;
      return user
        ? messageReply(
            {
              screen: "notice",
              data: {
                mrkdwn: `:bust_in_silhouette: You act in Palette as *${escapeMrkdwn(user.name)}* (user ${code(user.uid)}), found by your Slack e-mail address.`,
              },
            },
            `You act in Palette as ${user.name}.`,
          )
        : errorReply(
            ":key: No Palette user has your Slack e-mail address.",
            "No Palette user has your Slack e-mail address.",
            "Ask a Palette admin to invite that address.",
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
    if (ctx.identity.method === "email") return byEmail();
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
