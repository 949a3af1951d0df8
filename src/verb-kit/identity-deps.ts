import type { PaletteApi, PaletteIdentityApi } from "../palette/api.ts";
import type { Secret } from "../secret.ts";
import type { IdentityStore } from "../store/identities.ts";

/** A Palette client that acts with one person's key; the caller closes it when done. */
export type PersonalPalette = PaletteApi & PaletteIdentityApi & { close(): Promise<void> };

/**
 * What the commands need to act as the person (IDENTITY=linked): their stored link, and a
 * Palette client built on a key. Absent from CommandDeps: everything runs as the service account.
 */
export interface IdentityDeps {
  /** `linked`: acting commands as the person; `strict`: their reads of Palette too */
  mode: "service" | "linked" | "strict";
  /** `key`: the person linked a key of their own; `email`: a key is minted for each command */
  method: "key" | "email";
  store: IdentityStore;
  paletteAs(apiKey: Secret): PersonalPalette;
  /** LINK_METHOD=email: the service account's identity calls (find a user, mint and delete keys) */
  service?: PaletteIdentityApi;
  /** LINK_METHOD=email: the Slack user's verified e-mail (users:read.email) */
  emailOf?(slackUserId: string): Promise<string | undefined>;
  /** ms since the epoch, for a minted key's expiry */
  now(): number;
}
