import type { Logger } from "../log.ts";
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
  /**
   * LINK_METHOD=email: the Slack user's e-mail and whether they belong to another workspace
   * (Slack Connect: `users.info` gives another `team_id`, or `is_stranger`), in one lookup; used
   * instead of emailOf when given
   */
  slackPersonOf?(slackUserId: string): Promise<SlackPerson>;
  /** where a minted key's trouble is told (never the key) */
  logger?: Logger;
  /** counts a minted key the bot could not delete, or whose creation answer it could not read */
  countMintedKeyTrouble?(
    kind: "delete_failed" | "create_unreadable",
    outcome: "deleted" | "left",
  ): void;
  /** ms since the epoch, for a minted key's expiry */
  now(): number;
}

/** What Slack says of a person, for LINK_METHOD=email. */
export interface SlackPerson {
  email?: string;
  /** a member of another workspace (a Slack Connect guest): no key is minted for them */
  outsider?: "other workspace" | "stranger";
}
