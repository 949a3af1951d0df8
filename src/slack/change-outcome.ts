import type { ChangeBoard } from "../changes/board.ts";
import { deliverCard } from "../changes/card-delivery.ts";
import type { Execution } from "../changes/execute.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { describeForUser } from "../palette/errors.ts";
import type { SqlDb } from "../store/sql.ts";
import { escapeMrkdwn } from "../views/mrkdwn.ts";

/**
 * After Palette answered a change: its card goes to the channel it was asked in (accepted:
 * followed from here; failed: Palette's reason; unconfirmed: Palette did not answer, the
 * follower reads whether it happened). The move that recorded Palette's answer wrote the card
 * to the change's row; it is sent from there (src/changes/card-delivery.ts), so a refusal by
 * Slack (a 429, a 5xx) keeps it owed and the follower's rounds send it, not lose it.
 */
export async function postChangeCard(
  execution: Execution,
  deps: { board: ChangeBoard; db: SqlDb; clock: Clock; logger: Logger },
): Promise<void> {
  // the lease holder took the claim over: its card is the one that tells the change's end
  if (execution.kind === "taken over") return;
  await deliverCard(execution.record.id, deps);
}

/**
 * The change's use case threw (the store, Slack, a bug): the person who submitted or clicked
 * hears it rather than nothing. Not "failed": the request may have gone out before the error,
 * and then the lease holder finds the claimed change and reads Palette for its end.
 */
export async function tellChangeError(
  error: unknown,
  to: { channel: string; userId: string },
  deps: { board: ChangeBoard; logger: Logger },
): Promise<void> {
  deps.logger.error(
    { err: error instanceof Error ? error.message : String(error) },
    "change not handled to its end here",
  );
  const why = describeForUser(error);
  await deps.board
    .tell(
      to.channel,
      to.userId,
      `:warning: The bot hit an error handling this change: ${escapeMrkdwn(why)}\nIf it reached Palette, its card follows once the bot has read Palette; it is not sent twice.`,
      `The bot hit an error handling this change: ${why}`,
    )
    .catch((cause: unknown) =>
      deps.logger.warn({ err: String(cause) }, "change error not told to the person"),
    );
}
