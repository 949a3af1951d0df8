import { z } from "zod";
import type { Logger } from "../log.ts";
import { isTimeZone } from "../model/hold-time.ts";
import { describeSlackError } from "./slack-errors.ts";
import type { WebClient } from "./types.ts";

const userInfo = z.object({
  user: z.object({ tz: z.string().nullish() }).optional(),
});

/**
 * The user's time zone as Slack's profile has it (`users.info`, scope `users:read`). Slack not
 * answering, or a zone this Node does not know, gives UTC with `known: false`, so the answer can
 * say which 09:00 it meant.
 */
export async function userTimeZone(
  client: Pick<WebClient, "users">,
  userId: string,
  logger: Logger,
): Promise<{ name: string; known: boolean }> {
  try {
    const parsed = userInfo.safeParse(await client.users.info({ user: userId }));
    const tz = parsed.success ? parsed.data.user?.tz : undefined;
    if (tz && isTimeZone(tz)) return { name: tz, known: true };
    logger.warn({ userId }, "users.info gave no time zone this bot knows; using UTC");
  } catch (error) {
    logger.warn(
      { userId, slackError: describeSlackError(error).code },
      "users.info failed; using UTC for the user's time zone",
    );
  }
  return { name: "UTC", known: false };
}
