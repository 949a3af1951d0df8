import type { PaletteIdentityApi } from "../palette/api.ts";
import { PaletteError } from "../palette/errors.ts";
import type { IdentityLink } from "../store/identities.ts";
import type { IdentityDeps, PersonalPalette } from "../verb-kit/identity-deps.ts";
import { errorReply } from "../verb-kit/reply.ts";
import type { MessageReply } from "../verb-kit/types.ts";
import { escapeMrkdwn } from "../views/mrkdwn.ts";

/** A minted key lives this long at most; it is deleted as soon as its command is done. */
export const MINTED_KEY_LIFETIME_MS = 15 * 60_000;

export type Minted =
  | { kind: "person"; link: IdentityLink; palette: PersonalPalette }
  | { kind: "refused"; reply: MessageReply };

const refused = (
  mrkdwn: string,
  plain: string,
  hint?: string,
): { kind: "refused"; reply: MessageReply } => ({
  kind: "refused",
  reply: errorReply(mrkdwn, plain, hint),
});

/** The Palette user with the person's verified Slack e-mail (LINK_METHOD=email), or why not. */
export type ByEmail =
  | { kind: "found"; user: { uid: string; name: string }; service: PaletteIdentityApi }
  | { kind: "refused"; reply: MessageReply };

/**
 * Finds the person's Palette user by their Slack e-mail, with the bot's own account. Asked before
 * a change is planned (nothing minted yet) and again when a key is minted for a command.
 */
export async function personByEmail(slackUserId: string, identity: IdentityDeps): Promise<ByEmail> {
  const service = identity.service;
  const email = await identity.emailOf?.(slackUserId).catch(() => undefined);
  if (!service || !email) {
    return refused(
      ":key: I could not read your Slack e-mail address, which is how this workspace finds your Palette user.",
      "Your Slack e-mail address could not be read.",
      "The Slack app needs the users:read.email scope (reinstall it after updating the manifest).",
    );
  }
  try {
    const user = await service.findUserByEmail(email);
    if (!user) {
      return refused(
        `:key: No Palette user has your Slack e-mail address (${escapeMrkdwn(email)}).`,
        "No Palette user has your Slack e-mail address.",
        "Ask a Palette admin to invite that address, or to use LINK_METHOD=key.",
      );
    }
    return { kind: "found", user, service };
  } catch (error) {
    if (error instanceof PaletteError && error.kind === "forbidden") return serviceForbidden();
    throw error;
  }
}

function serviceForbidden(): { kind: "refused"; reply: MessageReply } {
  return refused(
    ":no_entry: The bot's Palette account may not find users or create API keys for them, which LINK_METHOD=email needs.",
    "The bot's Palette account may not create API keys for users.",
    "Give the bot's account a role that may list users and create API keys for them (a tenant admin), or use LINK_METHOD=key.",
  );
}

/**
 * LINK_METHOD=email: the person's verified Slack e-mail finds their Palette user, and the bot's
 * own account mints a short-lived API key for them (`POST /v1/apiKeys`), used for this one
 * command and deleted when it closes. No key passes through Slack or rests in the store.
 */
export async function mintFor(slackUserId: string, identity: IdentityDeps): Promise<Minted> {
  const found = await personByEmail(slackUserId, identity);
  if (found.kind === "refused") return found;
  const { user, service } = found;
  try {
    const minted = await service.createApiKey(
      user.uid,
      new Date(identity.now() + MINTED_KEY_LIFETIME_MS),
      `palette-chatops for ${slackUserId}`,
    );
    const inner = identity.paletteAs(minted.apiKey);
    const palette: PersonalPalette = {
      ...inner,
      async close() {
        await inner.close();
        // the key dies with its command; its expiry is the belt if this delete fails
        await service.deleteApiKey(minted.uid).catch(() => undefined);
      },
    };
    return {
      kind: "person",
      palette,
      link: {
        slackUserId,
        paletteUserUid: user.uid,
        paletteUserName: user.name,
        method: "email",
        linkedAt: new Date(identity.now()).toISOString(),
        apiKey: minted.apiKey,
      },
    };
  } catch (error) {
    if (error instanceof PaletteError && error.kind === "forbidden") return serviceForbidden();
    throw error;
  }
}
