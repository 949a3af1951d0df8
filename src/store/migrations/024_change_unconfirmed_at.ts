import type { Migration } from "./migration.ts";

/**
 * When a change became `unconfirmed` (issue 37 item 4): its "not applied" window runs from here.
 * It ran from `updated_at`, which a card recorded late also moves, so a slow card restarted it.
 * Older rows keep NULL and are judged by `updated_at`, as before.
 */
export const changeUnconfirmedAt: Migration = {
  id: 89,
  name: "change_unconfirmed_at",
  up: `
    ALTER TABLE changes ADD COLUMN unconfirmed_at INTEGER;
  `,
};
