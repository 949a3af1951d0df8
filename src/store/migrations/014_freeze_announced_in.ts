import type { Migration } from "./migration.ts";

/**
 * Where a freeze was announced (issue 25): the channel `/palette freeze` answered in, so its lift
 * is told there too, wherever `/palette unfreeze` is typed. Older freezes keep NULL (told only
 * where they are lifted).
 */
export const freezeAnnouncedIn: Migration = {
  id: 71,
  name: "freeze_announced_in",
  up: `
    ALTER TABLE freezes ADD COLUMN announced_in TEXT;
  `,
};
