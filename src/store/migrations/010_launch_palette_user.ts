import type { Migration } from "./migration.ts";

/**
 * Whom a launch ran as in Palette (51): with IDENTITY=linked the create carries the person's own
 * key, and the launch card says so ("as <Palette user>"); empty for the service account.
 */
export const launchPaletteUser: Migration[] = [
  {
    id: 51,
    name: "launch_palette_user",
    up: `
      ALTER TABLE launches ADD COLUMN palette_user TEXT;
    `,
  },
];
