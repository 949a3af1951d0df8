import type { ChangeBoard } from "../changes/board.ts";
import type { Execution } from "../changes/execute.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { ChangeStore } from "../store/changes.ts";
import type { SqlDb } from "../store/sql.ts";

/**
 * After Palette answered a change: its card goes to the channel it was asked in (accepted:
 * followed from here; failed: Palette's reason; unconfirmed: Palette did not answer, the
 * follower reads whether it happened), and the store keeps where, for the follower.
 */
export async function postChangeCard(
  execution: Execution,
  deps: { board: ChangeBoard; db: SqlDb; clock: Clock; logger: Logger },
): Promise<void> {
  const { record } = execution;
  try {
    const where = await deps.board.post(record.channel, {
      plan: record.plan,
      status: execution.kind,
      requester: record.requester,
      approver: record.approver,
      line: execution.kind === "accepted" ? "Palette accepted it" : execution.reason,
      paletteUser: execution.paletteUser,
    });
    if (where)
      await new ChangeStore(deps.db, deps.clock).setCard(record.id, where.channel, where.ts);
  } catch (error) {
    deps.logger.warn(
      { err: error instanceof Error ? error.message : String(error), changeId: record.id },
      "change card not posted",
    );
  }
}
