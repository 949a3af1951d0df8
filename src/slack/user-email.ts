import { z } from "zod";
import type { SlackPerson } from "../verb-kit/identity-deps.ts";
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

const userFacts = z.object({
  user: z
    .object({
      team_id: z.string().nullish(),
      is_stranger: z.boolean().nullish(),
      enterprise_user: z.object({ enterprise_id: z.string().nullish() }).nullish(),
      profile: z.object({ email: z.string().email().nullish() }).nullish(),
    })
    .optional(),
});

const authTest = z.object({ team_id: z.string().nullish(), enterprise_id: z.string().nullish() });

/** The workspace (and Enterprise Grid org) the bot is installed in. */
export interface SlackHome {
  teamId?: string;
  enterpriseId?: string;
}

/**
 * The bot's own workspace: SLACK_TEAM_ID when set (a `T…` workspace or an `E…` org), else what
 * `auth.test` says, asked once and kept (the bot passed auth.test to start at all).
 */
export function slackHomeOf(
  client: Pick<WebClient, "auth">,
  configured?: string,
): () => Promise<SlackHome> {
  if (configured) {
    const home = configured.startsWith("E") ? { enterpriseId: configured } : { teamId: configured };
    return async () => home;
  }
  let known: SlackHome | undefined;
  return async () => {
    if (known) return known;
    const parsed = authTest.parse(await client.auth.test());
    known = {
      ...(parsed.team_id ? { teamId: parsed.team_id } : {}),
      ...(parsed.enterprise_id ? { enterpriseId: parsed.enterprise_id } : {}),
    };
    return known;
  };
}

/**
 * LINK_METHOD=email: the person's verified e-mail from one `users.info`, unless they belong to
 * another workspace (Slack Connect: `is_stranger`, or a `team_id` that is not the bot's and no
 * shared Enterprise Grid org), whose e-mail this workspace did not verify. Throws when Slack or
 * the bot's own workspace cannot be read: the caller refuses then.
 */
export function slackPersonOf(client: Pick<WebClient, "users">, home: () => Promise<SlackHome>) {
  return async (userId: string): Promise<SlackPerson> => {
    const parsed = userFacts.safeParse(await client.users.info({ user: userId }));
    const user = parsed.success ? parsed.data.user : undefined;
    if (user?.is_stranger) return { outsider: "stranger" };
    const ours = await home();
    const sameTeam = !!ours.teamId && user?.team_id === ours.teamId;
    const sameOrg =
      !!ours.enterpriseId && user?.enterprise_user?.enterprise_id === ours.enterpriseId;
    if (user?.team_id && !sameTeam && !sameOrg) return { outsider: "other workspace" };
    const email = user?.profile?.email ?? undefined;
    return email ? { email } : {};
  };
}
