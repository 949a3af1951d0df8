/**
 * How the launch follower treats a card Slack refuses to post or edit (archived channel, deleted
 * message, revoked scope): a few tries, further apart each time, then it leaves that card be.
 * Following the cluster goes on without it, so the 3 h limit and the freed name still come.
 */

export interface CardRetryPolicy {
  /** tries of one card in a row before giving it up */
  maxAttempts: number;
  /** wait after the first refusal; each further refusal doubles it */
  baseMs: number;
  /** no wait is longer than this */
  maxMs: number;
}

/** at the 15 s watch: tries at about 0 s, 15 s, 45 s, 1 m 45 s, 3 m 45 s, then none */
export const DEFAULT_CARD_RETRY: CardRetryPolicy = {
  maxAttempts: 5,
  baseMs: 15_000,
  maxMs: 10 * 60_000,
};

interface Failures {
  count: number;
  nextAt: number;
}

/**
 * Refusals per launch, in memory: a restart gives a given-up card one more round of tries,
 * which is bounded too and may find the channel usable again.
 */
export class CardAttempts {
  private readonly failures = new Map<number, Failures>();

  constructor(private readonly policy: CardRetryPolicy) {}

  /** true when the card may be tried now: not waiting out a backoff, not given up */
  due(launchId: number, now: number): boolean {
    const failures = this.failures.get(launchId);
    return !failures || (failures.count < this.policy.maxAttempts && now >= failures.nextAt);
  }

  givenUp(launchId: number): boolean {
    return (this.failures.get(launchId)?.count ?? 0) >= this.policy.maxAttempts;
  }

  /** notes a refusal; true when that was the last try */
  failed(launchId: number, now: number): boolean {
    const count = (this.failures.get(launchId)?.count ?? 0) + 1;
    const waitMs = Math.min(this.policy.maxMs, this.policy.baseMs * 2 ** (count - 1));
    this.failures.set(launchId, { count, nextAt: now + waitMs });
    return count >= this.policy.maxAttempts;
  }

  /** the card went through: later refusals start counting afresh */
  succeeded(launchId: number): void {
    this.failures.delete(launchId);
  }

  /** the launch is no longer followed */
  forget(launchId: number): void {
    this.failures.delete(launchId);
  }
}
