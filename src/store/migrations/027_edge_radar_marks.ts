import type { Migration } from "./migration.ts";

/**
 * The radar's edge marks (issue 39, item 5): when the bot first saw a state Palette does not date.
 * `shell-open`: a host's remote shell open (when Palette's tunnel gives no lastModifiedTime);
 * `ready-unused`: a host `ready` and running no cluster. A mark is set at the first read that
 * finds the state and dropped at the first read that does not, so "open for 9 hours" and
 * "unused for 31 days" are the bot's own measures.
 */
export const edgeRadarMarks: Migration = {
  id: 112,
  name: "edge_radar_marks",
  up: `
    CREATE TABLE edge_radar_marks (
      host_uid TEXT NOT NULL,
      mark TEXT NOT NULL CHECK (mark IN ('shell-open', 'ready-unused')),
      since INTEGER NOT NULL,
      PRIMARY KEY (host_uid, mark)
    );
  `,
};
