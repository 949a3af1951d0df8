import { errorReply } from "../commands/reply.ts";
import type { MessageReply, Requester } from "../commands/types.ts";
import { PaletteError } from "../palette/errors.ts";
import type { IdentityLink } from "../store/identities.ts";
import { code, escapeMrkdwn } from "../views/mrkdwn.ts";
import { mintFor } from "./minted.ts";
import type { IdentityDeps, PersonalPalette } from "./types.ts";

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
  if (!link) {
    return {
      kind: "refused",
      reply: errorReply(
        ":key: This acts as you in Palette, and your Slack account is not linked to a Palette user yet.",
        "Link your Palette user first: /palette login",
        "Run `/palette login` and paste a personal Palette API key; then ask again.",
      ),
    };
  }
  return { kind: "person", link, palette: identity.paletteAs(link.apiKey) };
}

/** What an audit row adds about whom an acting command ran as (nothing for the service account). */
export function actingDetail(acting: Acting): { paletteUser?: string; paletteUserUid?: string } {
  return acting.kind === "person"
    ? { paletteUser: acting.link.paletteUserName, paletteUserUid: acting.link.paletteUserUid }
    : {};
}

/**
 * What to say when Palette refused the person's own key. A 403 is Palette's RBAC speaking; a 401
 * means the key is gone (expired, revoked): the link is removed, and the person is told once
 * (`told` is false for a second request that found it already removed).
 */
export async function personalRefusal(
  error: unknown,
  link: IdentityLink,
  action: string,
  project: string | undefined,
  identity: IdentityDeps,
): Promise<MessageReply | undefined> {
  if (!(error instanceof PaletteError)) return undefined;
  const who = escapeMrkdwn(link.paletteUserName);
  if (error.kind === "forbidden") {
    const where = project ? ` in project ${code(project)}` : "";
    return errorReply(
      `:no_entry: Palette does not allow ${who} to ${action}${where}.`,
      `Palette does not allow ${link.paletteUserName} to ${action}${project ? ` in project ${project}` : ""}.`,
      "Your role in Palette decides this; a Palette admin can change it.",
    );
  }
  if (error.kind === "unauthorized") {
    const told = await identity.store.remove(link.slackUserId);
    return errorReply(
      told
        ? `:key: Palette no longer accepts the key you linked as ${who} (expired or revoked), so I unlinked it.`
        : ":key: Your Slack account is not linked to a Palette user any more.",
      "Your linked Palette key no longer works; link a new one with /palette login.",
      "Run `/palette login` with a new personal API key.",
    );
  }
  return undefined;
}
