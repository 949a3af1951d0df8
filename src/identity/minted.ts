import { randomBytes } from "node:crypto";
import type { PaletteIdentityApi } from "../palette/api.ts";
import { PaletteError, PaletteSchemaError } from "../palette/errors.ts";
import type { Secret } from "../secret.ts";
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
  const person = identity.slackPersonOf
    ? await identity.slackPersonOf(slackUserId).catch(() => undefined)
    : { email: await identity.emailOf?.(slackUserId).catch(() => undefined) };
  // a Slack Connect guest's e-mail is verified by their own workspace, not this one: a match
  // would hand them the Palette user of whoever owns that address here
  if (person?.outsider) {
    identity.logger?.warn(
      { slackUserId, outsider: person.outsider },
      "LINK_METHOD=email: no key minted for a member of another Slack workspace",
    );
    return refused(
      ":no_entry: You are a member of another Slack workspace, so the bot will not act as a Palette user for you: it finds Palette users by the e-mail addresses of this workspace's own members.",
      "The bot does not act in Palette for members of another Slack workspace.",
      "Ask someone in this workspace to make the change, or a Palette admin for access of your own.",
    );
  }
  const email = person?.email;
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
  // unique per mint, so the key can be found by its name when Palette's answer cannot be read
  const name = `palette-chatops for ${slackUserId} ${randomBytes(4).toString("hex")}`;
  try {
    let minted: { uid: string; apiKey: Secret };
    try {
      minted = await service.createApiKey(
        user.uid,
        new Date(identity.now() + MINTED_KEY_LIFETIME_MS),
        name,
      );
    } catch (error) {
      // a 2xx whose body does not parse: Palette made a key the bot holds no handle of
      if (error instanceof PaletteSchemaError)
        await cleanUpUnread(name, user.uid, service, identity);
      throw error;
    }
    const inner = identity.paletteAs(minted.apiKey);
    const palette: PersonalPalette = {
      ...inner,
      async close() {
        await inner.close();
        // the key dies with its command; its expiry is the belt if this delete fails
        await service.deleteApiKey(minted.uid).catch((error: unknown) => {
          identity.countMintedKeyTrouble?.("delete_failed", "left");
          identity.logger?.warn(
            {
              keyUid: minted.uid,
              keyName: name,
              paletteUserUid: user.uid,
              expiresInMs: MINTED_KEY_LIFETIME_MS,
              err: describeError(error),
            },
            "LINK_METHOD=email: a minted Palette API key could not be deleted; it lives until it expires",
          );
        });
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

/**
 * Palette answered a key's creation with a body the bot cannot read: the key exists, unseen.
 * It is looked up by its (unique) name and deleted; when that fails too, its name is logged for
 * the operator (it expires within MINTED_KEY_LIFETIME_MS anyway). Never throws.
 */
async function cleanUpUnread(
  name: string,
  paletteUserUid: string,
  service: PaletteIdentityApi,
  identity: IdentityDeps,
): Promise<void> {
  try {
    const uids = await service.apiKeysNamed(name);
    for (const uid of uids) await service.deleteApiKey(uid);
    identity.countMintedKeyTrouble?.("create_unreadable", "deleted");
    identity.logger?.warn(
      { keyName: name, keyUids: uids, paletteUserUid },
      "LINK_METHOD=email: Palette's answer to a key's creation could not be read; the key was found by its name and deleted",
    );
  } catch (error) {
    identity.countMintedKeyTrouble?.("create_unreadable", "left");
    identity.logger?.error(
      {
        keyName: name,
        paletteUserUid,
        expiresInMs: MINTED_KEY_LIFETIME_MS,
        err: describeError(error),
      },
      "LINK_METHOD=email: Palette's answer to a key's creation could not be read, and the key could not be found and deleted; delete it by its name in Palette, or let it expire",
    );
  }
}

/** an error's kind and message for a log line: Palette's errors never carry a key */
function describeError(error: unknown): string {
  if (error instanceof PaletteError) return `${error.kind} ${error.status}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
