import type { Clock } from "../clock.ts";
import { Secret } from "../secret.ts";
import { IdentityCipher } from "./identity-cipher.ts";
import type { SqlExecutor } from "./sql.ts";

/** A Slack user linked to their Palette user, as stored (the key sealed). */
export interface IdentityLink {
  slackUserId: string;
  paletteUserUid: string;
  paletteUserName: string;
  /** Palette's organization (tenant) name, when it said */
  org?: string;
  /** `email`: not stored, a key minted for one command (src/identity/minted.ts) */
  method: "key" | "email";
  /** ISO time of the link */
  linkedAt: string;
  /** the person's API key; only ever held as a Secret */
  apiKey: Secret;
}

interface Row {
  slack_user_id: string;
  palette_user_uid: string;
  palette_user_name: string;
  org: string | null;
  method: string;
  linked_at: string;
  key_sealed: string;
}

const COLUMNS =
  "slack_user_id, palette_user_uid, palette_user_name, org, method, linked_at, key_sealed";

/**
 * Who each Slack user is in Palette, with the API key they linked, sealed with IDENTITY_KEY
 * (src/store/identity-cipher.ts): the database holds no key in the clear. One row a person: two
 * logins at once end with one link, the later one's.
 */
export class IdentityStore {
  constructor(
    private readonly db: SqlExecutor,
    private readonly cipher: IdentityCipher,
    private readonly clock: Clock,
  ) {}

  async put(link: Omit<IdentityLink, "linkedAt">): Promise<IdentityLink> {
    const linkedAt = new Date(this.clock.now()).toISOString();
    await this.db.run(
      `INSERT INTO identity_links (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (slack_user_id) DO UPDATE SET palette_user_uid = excluded.palette_user_uid,
         palette_user_name = excluded.palette_user_name, org = excluded.org,
         method = excluded.method, linked_at = excluded.linked_at, key_sealed = excluded.key_sealed`,
      [
        link.slackUserId,
        link.paletteUserUid,
        link.paletteUserName,
        link.org ?? null,
        link.method,
        linkedAt,
        this.cipher.seal(link.apiKey.reveal(), link.slackUserId),
      ],
    );
    return { ...link, linkedAt };
  }

  /** The link, or undefined: none, or sealed under a key this replica no longer has. */
  async get(slackUserId: string): Promise<IdentityLink | undefined> {
    const row = await this.db.get<Row>(
      `SELECT ${COLUMNS} FROM identity_links WHERE slack_user_id = ?`,
      [slackUserId],
    );
    if (!row) return undefined;
    const key = this.cipher.open(row.key_sealed, row.slack_user_id);
    if (key === undefined) return undefined;
    return {
      slackUserId: row.slack_user_id,
      paletteUserUid: row.palette_user_uid,
      paletteUserName: row.palette_user_name,
      ...(row.org ? { org: row.org } : {}),
      method: "key",
      linkedAt: row.linked_at,
      apiKey: new Secret(key),
    };
  }

  /** Unlinks; true for the one caller who removed the row (so only they tell the person). */
  async remove(slackUserId: string): Promise<boolean> {
    const result = await this.db.run("DELETE FROM identity_links WHERE slack_user_id = ?", [
      slackUserId,
    ]);
    return result.changes === 1;
  }

  /**
   * Re-seals every row under the current key (`rotate-identity-key`). Returns how many were
   * re-sealed and how many no key here could open (left as they are).
   */
  async reseal(): Promise<{ resealed: number; unreadable: number }> {
    const rows = await this.db.all<Pick<Row, "slack_user_id" | "key_sealed">>(
      "SELECT slack_user_id, key_sealed FROM identity_links",
    );
    let resealed = 0;
    let unreadable = 0;
    for (const row of rows) {
      if (IdentityCipher.keyIdOf(row.key_sealed) === this.cipher.currentKeyId) continue;
      const key = this.cipher.open(row.key_sealed, row.slack_user_id);
      if (key === undefined) {
        unreadable++;
        continue;
      }
      await this.db.run(
        "UPDATE identity_links SET key_sealed = ? WHERE slack_user_id = ? AND key_sealed = ?",
        [this.cipher.seal(key, row.slack_user_id), row.slack_user_id, row.key_sealed],
      );
      resealed++;
    }
    return { resealed, unreadable };
  }
}
