import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { AuditLog } from "../store/audit.ts";
import type { ChangeStore } from "../store/changes.ts";

const DAY_MS = 86_400_000;

/** how often the lease holder prunes the audit; rows a few hours past their time do no harm */
export const AUDIT_PRUNE_EVERY_MS = 6 * 3_600_000;

export interface AuditRetention {
  /** deletes the rows older than AUDIT_RETENTION_DAYS now; returns how many went */
  run(): Promise<number>;
}

/**
 * AUDIT_RETENTION_DAYS (issue 25): the audit is kept that long and no longer. One of the lease
 * holder's singletons (src/app/bot.ts), so replicas do not race to delete the same rows; the
 * bot's clock decides what "older" means, so a test moves it by hand.
 */
export function createAuditRetention(deps: {
  audit: AuditLog;
  clock: Clock;
  retentionDays: number;
  logger: Logger;
  /**
   * CHANGES_RETENTION_DAYS (issue 31): ended changes kept that long, pruned in the same round;
   * the changes table grew without end, and `why` reads it by cluster
   */
  changes?: { store: ChangeStore; retentionDays: number };
  /**
   * ASSISTANT_HISTORY_DAYS (issue 36): the assistant's stored questions, answers and reads, pruned
   * in the same round, so they go when their time is up even if nobody asks again
   */
  assistantTurns?: { prune(): Promise<number> };
  /**
   * the attempt markers of post once (issue 37 item 1) a crash left behind (a settled message
   * drops its own), pruned in the same round once no retry can still want them
   */
  postAttempts?: { prune(): Promise<number> };
}): AuditRetention {
  return {
    async run() {
      if (deps.changes) await pruneChanges(deps.changes, deps.clock, deps.logger);
      if (deps.assistantTurns) {
        await pruneAlso(
          deps.assistantTurns,
          deps.logger,
          "assistant turns",
          "ASSISTANT_HISTORY_DAYS",
        );
      }
      if (deps.postAttempts) {
        await pruneAlso(deps.postAttempts, deps.logger, "post attempt markers", "their week");
      }
      const before = deps.clock.now() - deps.retentionDays * DAY_MS;
      try {
        const pruned = await deps.audit.prune(before);
        if (pruned > 0) {
          deps.logger.info(
            { pruned, before: new Date(before).toISOString(), days: deps.retentionDays },
            "audit rows past AUDIT_RETENTION_DAYS deleted",
          );
        }
        return pruned;
      } catch (error) {
        // the next round tries again; nothing else depends on it
        deps.logger.warn(
          { err: error instanceof Error ? error.message : String(error) },
          "audit retention round failed",
        );
        return 0;
      }
    },
  };
}

async function pruneChanges(
  changes: { store: ChangeStore; retentionDays: number },
  clock: Clock,
  logger: Logger,
): Promise<void> {
  const before = clock.now() - changes.retentionDays * DAY_MS;
  try {
    const pruned = await changes.store.prune(before);
    if (pruned > 0) {
      logger.info(
        { pruned, before: new Date(before).toISOString(), days: changes.retentionDays },
        "ended changes past CHANGES_RETENTION_DAYS deleted",
      );
    }
  } catch (error) {
    // the next round tries again; the audit's own round still runs
    logger.warn(
      { err: error instanceof Error ? error.message : String(error) },
      "change retention round failed",
    );
  }
}

/** one more table pruned in the round: `what` past `limit` deleted */
async function pruneAlso(
  table: { prune(): Promise<number> },
  logger: Logger,
  what: string,
  limit: string,
): Promise<void> {
  try {
    const pruned = await table.prune();
    if (pruned > 0) logger.info({ pruned }, `${what} past ${limit} deleted`);
  } catch (error) {
    // the next round tries again; the audit's own round still runs
    logger.warn(
      { err: error instanceof Error ? error.message : String(error) },
      `${what} retention round failed`,
    );
  }
}
