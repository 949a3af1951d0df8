import type { Clock } from "../clock.ts";
import type { SqlExecutor } from "./sql.ts";

/** Slack redelivers an unanswered event for about an hour; claims are kept for a day. */
const KEEP_CLAIMS_MS = 24 * 60 * 60_000;
/** pruning runs on one claim in this many, so the common claim is one statement */
const PRUNE_EVERY = 200;

/**
 * Who answers an Events API delivery: the first replica to claim its key. Slack redelivers an
 * event it thinks went unanswered (`X-Slack-Retry-Num`, same `event_id`), possibly to another
 * replica; the claim is one insert, so exactly one of them wins, whatever the timing.
 */
export class EventClaimStore {
  private claims = 0;

  constructor(
    private readonly db: SqlExecutor,
    private readonly clock: Clock,
  ) {}

  /** true for the first caller with this key; false for every later one, on any replica */
  async claim(key: string): Promise<boolean> {
    const now = this.clock.now();
    const result = await this.db.run(
      `INSERT INTO slack_event_claims (event_key, claimed_at) VALUES (?, ?)
       ON CONFLICT (event_key) DO NOTHING`,
      [key.slice(0, 200), new Date(now).toISOString()],
    );
    if (++this.claims % PRUNE_EVERY === 0) await this.prune(now);
    return result.changes === 1;
  }

  async prune(now = this.clock.now()): Promise<number> {
    const result = await this.db.run("DELETE FROM slack_event_claims WHERE claimed_at < ?", [
      new Date(now - KEEP_CLAIMS_MS).toISOString(),
    ]);
    return result.changes;
  }
}
