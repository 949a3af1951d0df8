import { PaletteError } from "../palette/errors.ts";
import type { IdentityLink } from "../store/identities.ts";
import type { IdentityDeps, PersonalPalette } from "../verb-kit/identity-deps.ts";
import { errorReply } from "../verb-kit/reply.ts";
import type { MessageReply, Requester } from "../verb-kit/types.ts";
import { code, escapeMrkdwn } from "../views/mrkdwn.ts";
import { mintFor, personByEmail } from "./minted.ts";

/** Who an acting command runs as: the service account, the linked person, or no one yet. */
export type Acting =
  | { kind: "service" }
  | { kind: "person"; link: IdentityLink; palette: PersonalPalette }
  | { kind: "refused"; reply: MessageReply };

/**
 * In IDENTITY=linked an acting command (a kubeconfig, …) runs with the person's own key, so
 * Palette's RBAC decides and Palette's audit names them. An unlinked person is told how to link,
 * and nothing is asked of Palette for them.
 */
export async function actingFor(
  requester: Requester,
  identity: IdentityDeps | undefined,
): Promise<Acting> {
  if (!identity || identity.mode === "service") return { kind: "service" };
  if (identity.method === "email") return mintFor(requester.userId, identity);
  const link = await identity.store.get(requester.userId);
  if (!link) return { kind: "refused", reply: notLinkedReply() };
  return { kind: "person", link, palette: identity.paletteAs(link.apiKey) };
}

function notLinkedReply(): MessageReply {
  return errorReply(
    ":key: This acts as you in Palette, and your Slack account is not linked to a Palette user yet.",
    "Link your Palette user first: /palette login",
    "Run `/palette login` and paste a personal Palette API key; then ask again.",
  );
}

/**
 * Whether the person could act in Palette at all (IDENTITY=linked|strict), asked before anything
 * is read for them: a key link in the store, or (LINK_METHOD=email) a Palette user with their
 * Slack e-mail. No key is minted here. The refusal is theirs alone to read.
 */
export async function cannotAct(
  requester: Requester,
  identity: IdentityDeps | undefined,
): Promise<MessageReply | undefined> {
  if (!identity || identity.mode === "service") return undefined;
  if (identity.method === "email") {
    const found = await personByEmail(requester.userId, identity);
    return found.kind === "refused" ? found.reply : undefined;
  }
  return (await identity.store.get(requester.userId)) ? undefined : notLinkedReply();
}

/** What an audit row adds about whom an acting command ran as (nothing for the service account). */
export function actingDetail(acting: Acting): { paletteUser?: string; paletteUserUid?: string } {
  return acting.kind === "person"
    ? { paletteUser: acting.link.paletteUserName, paletteUserUid: acting.link.paletteUserUid }
    : {};
}

/** A refusal of the person's own key, in words for Slack: `plain` is unescaped (a card's line). */
export interface PersonalRefusal {
  mrkdwn: string;
  plain: string;
  hint: string;
}

/**
 * What to say when Palette refused the person's own key, in their name: a 403 is Palette's RBAC
 * speaking about them (never a hint to widen the bot's role); a 401 means the key is gone
 * (expired, revoked): the link is removed, and the person is told once (`told` is false for a
 * second request that found it already removed). Anything else: undefined.
 */
export async function personalRefusalLines(
  error: unknown,
  link: IdentityLink,
  action: string,
  project: string | undefined,
  identity: IdentityDeps,
): Promise<PersonalRefusal | undefined> {
  if (!(error instanceof PaletteError)) return undefined;
  const who = escapeMrkdwn(link.paletteUserName);
  if (error.kind === "forbidden") {
    const where = project ? ` in project ${code(project)}` : "";
    return {
      mrkdwn: `:no_entry: Palette does not allow ${who} to ${action}${where}.`,
      plain: `Palette does not allow ${link.paletteUserName} to ${action}${project ? ` in project ${project}` : ""}.`,
      hint: "Your role in Palette decides this; a Palette admin can change it.",
    };
  }
  if (error.kind === "unauthorized") {
    // a minted key (LINK_METHOD=email) is not stored: there is nothing to unlink
    const told = link.method === "key" ? await identity.store.remove(link.slackUserId) : false;
    return {
      mrkdwn:
        link.method !== "key"
          ? `:key: Palette did not accept the key made for ${who} for this command.`
          : told
            ? `:key: Palette no longer accepts the key you linked as ${who} (expired or revoked), so I unlinked it.`
            : ":key: Your Slack account is not linked to a Palette user any more.",
      plain:
        link.method !== "key"
          ? `Palette did not accept the key made for ${link.paletteUserName}; try again in a minute.`
          : "Your linked Palette key no longer works; link a new one with /palette login.",
      hint:
        link.method !== "key"
          ? "Ask again in a minute; if it persists a Palette admin can check your user."
          : "Run `/palette login` with a new personal API key.",
    };
  }
  return undefined;
}

/** personalRefusalLines as a reply only the person sees. */
export async function personalRefusal(
  error: unknown,
  link: IdentityLink,
  action: string,
  project: string | undefined,
  identity: IdentityDeps,
): Promise<MessageReply | undefined> {
  const lines = await personalRefusalLines(error, link, action, project, identity);
  return lines ? errorReply(lines.mrkdwn, lines.plain, lines.hint) : undefined;
}
