import { z } from "zod";
import type { WebClient } from "./types.ts";

const userInfo = z.object({
  user: z
    .object({ profile: z.object({ email: z.string().email().nullish() }).nullish() })
    .optional(),
});

/**
 * A Slack user's verified e-mail (`users.info`, scope `users:read.email`), which LINK_METHOD=email
 * maps to their Palette user. undefined when Slack does not say (no scope, a bot, an error).
 */
export function slackEmailOf(client: Pick<WebClient, "users">) {
  return async (userId: string): Promise<string | undefined> => {
    const parsed = userInfo.safeParse(await client.users.info({ user: userId }));
    return (parsed.success ? parsed.data.user?.profile?.email : undefined) ?? undefined;
  };
}
