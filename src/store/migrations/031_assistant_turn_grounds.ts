import type { Migration } from "./migration.ts";

/**
 * The tokens and links of the data each assistant turn's reads returned (issue 36, review finding
 * 2): a follow-up is grounded by these alone, never by the stored text of the reads, which also
 * holds the commands the model chose (`clusters tag:<anything>`) and empty notices. Turns stored
 * before this column ground nothing in their follow-ups.
 */
export const assistantTurnGrounds: Migration = {
  id: 116,
  name: "assistant_turn_grounds",
  up: `
    ALTER TABLE assistant_turns ADD COLUMN read_grounds TEXT NOT NULL DEFAULT '';
  `,
};
