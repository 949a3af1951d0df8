import type { Migration } from "./migration.ts";

/**
 * What a person must still see of a change (issue 31, item 2), kept on its row until Slack takes
 * it: the change's card as it should read now (`card_owed`, JSON) and the approval request's
 * (`request_owed`), each with when to try next (Retry-After, a back-off, or a sender's lease)
 * and how many tries failed. NULL: the card shows what the row says.
 */
export const changeCardsOwed: Migration = {
  id: 81,
  name: "change_cards_owed",
  up: `
    ALTER TABLE changes ADD COLUMN card_owed TEXT;
    ALTER TABLE changes ADD COLUMN card_owed_at INTEGER;
    ALTER TABLE changes ADD COLUMN card_owed_tries INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE changes ADD COLUMN request_owed TEXT;
    ALTER TABLE changes ADD COLUMN request_owed_at INTEGER;
    ALTER TABLE changes ADD COLUMN request_owed_tries INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX changes_card_owed_at ON changes (card_owed_at);
    CREATE INDEX changes_request_owed_at ON changes (request_owed_at);
  `,
};
