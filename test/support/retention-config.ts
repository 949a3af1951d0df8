import { type Config, loadConfig } from "../../src/config.ts";

/**
 * The full bot's configuration for a retention-round test: Slack and Palette at the fakes, the
 * given state file, no poll or reconcile that could run during the test, and `extra` settings.
 */
export function retentionConfig(
  at: { slackApiUrl: string; paletteUrl: string; paletteApiKey: string; stateDb: string },
  extra: Record<string, string> = {},
): Config {
  return loadConfig({
    SLACK_BOT_TOKEN: "xoxb-retention-test",
    SLACK_SIGNING_SECRET: "retention-signing-secret",
    SLACK_API_URL: at.slackApiUrl,
    PALETTE_API_URL: at.paletteUrl,
    PALETTE_API_KEY: at.paletteApiKey,
    STATE_DB: at.stateDb,
    PORT: "0",
    POLL_SCHEDULE: "0 0 1 1 *",
    RECONCILE_SCHEDULE: "0 0 1 1 *",
    ...extra,
  });
}
