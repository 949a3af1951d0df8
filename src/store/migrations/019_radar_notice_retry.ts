import type { Migration } from "./migration.ts";

/**
 * When a risk notice Slack refused for now (a 429) is tried again (issue 31 item 3): the radar
 * retries it at that time, not when the sweep next reads its cluster (days on a large fleet).
 * NULL: nothing waits.
 */
export const radarNoticeRetry: Migration = {
  id: 86,
  name: "radar_notices_retry_at",
  up: `
    ALTER TABLE radar_notices ADD COLUMN retry_at INTEGER;
  `,
};
