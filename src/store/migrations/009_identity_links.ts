import type { Migration } from "./migration.ts";

/**
 * A Slack user's link to their Palette user (50): the API key they linked is stored sealed
 * with IDENTITY_KEY (src/store/identity-cipher.ts), never in the clear.
 */
export const identityLinks: Migration[] = [
  {
    id: 50,
    name: "identity_links",
    up: `
      CREATE TABLE identity_links (
        slack_user_id TEXT PRIMARY KEY,
        palette_user_uid TEXT NOT NULL,
        palette_user_name TEXT NOT NULL,
        org TEXT,
        method TEXT NOT NULL,
        linked_at TEXT NOT NULL,
        key_sealed TEXT NOT NULL
      );
    `,
  },
];
