import type { Migration } from "./migration.ts";

/**
 * Who holds a change's owed card, and until when (issue 37 item 2): `takeOwed` writes a random
 * token and an end by the database's clock, and every write of the sender that took it (the
 * card's ts, "shown", "later") applies only while that token is still the row's. The lease was
 * the due time moved forward by each replica's own clock, with no holder: a slow holder and the
 * next sender both posted, and the later `setCard` won.
 */
export const changeCardLeases: Migration = {
  id: 113,
  name: "change_card_leases",
  up: `
    ALTER TABLE changes ADD COLUMN card_lease_token TEXT;
    ALTER TABLE changes ADD COLUMN card_lease_until INTEGER;
    ALTER TABLE changes ADD COLUMN request_lease_token TEXT;
    ALTER TABLE changes ADD COLUMN request_lease_until INTEGER;
  `,
};
