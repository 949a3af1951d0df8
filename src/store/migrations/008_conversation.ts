import type { Migration } from "./migration.ts";

/**
 * Mentions, DMs and link unfurls (49): an Events API delivery is claimed once by its event_id
 * across replicas, so Slack's redeliveries and a second replica never answer twice; the thread
 * a mention is in finds its notification card by the card's ts.
 */
export const conversation: Migration[] = [
  {
    id: 49,
    name: "conversation",
    up: `
      CREATE TABLE slack_event_claims (
        event_key TEXT PRIMARY KEY,
        claimed_at TEXT NOT NULL
      );
      CREATE INDEX slack_event_claims_at ON slack_event_claims (claimed_at);
      CREATE INDEX notify_cards_ts ON notify_cards (channel, ts);
    `,
  },
];
