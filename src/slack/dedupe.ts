import type { AnyMiddlewareArgs, Middleware } from "@slack/bolt";
import { z } from "zod";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";

const requestKey = z
  .object({ event_id: z.string().optional(), trigger_id: z.string().optional() })
  .transform((body) => body.event_id ?? body.trigger_id);

/**
 * Slack re-sends a request it thinks went unanswered (header `x-slack-retry-num`). Every request
 * is remembered by its event_id/trigger_id for `windowMs`; a retry of one already seen is acked
 * and dropped, so a command never runs twice.
 */
export function retryDedupe(
  clock: Clock,
  logger: Logger,
  windowMs = 10 * 60_000,
): Middleware<AnyMiddlewareArgs> {
  const seen = new Map<string, number>();

  const prune = (now: number) => {
    // Map keeps insertion order, which is arrival order: stop at the first fresh entry.
    for (const [key, at] of seen) {
      if (now - at < windowMs) break;
      seen.delete(key);
    }
  };

  return async (args) => {
    const now = clock.now();
    prune(now);
    const parsed = requestKey.safeParse(args.body);
    const key = parsed.success ? parsed.data : undefined;
    if (key === undefined) {
      await args.next();
      return;
    }
    const retryNum = args.context.retryNum;
    if (typeof retryNum === "number" && retryNum > 0 && seen.has(key)) {
      logger.info(
        { retryNum, reason: args.context.retryReason },
        "dropped a Slack retry of a request already handled",
      );
      if ("ack" in args && typeof args.ack === "function") await args.ack();
      return;
    }
    if (!seen.has(key)) seen.set(key, now);
    await args.next();
  };
}
