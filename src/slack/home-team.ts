import type { AnyMiddlewareArgs, Middleware } from "@slack/bolt";
import { z } from "zod";
import type { Logger } from "../log.ts";
import { describeSlackError } from "./slack-errors.ts";
import type { WebClient } from "./types.ts";

/**
 * The workspace a request's *user* belongs to, as each kind of Slack request says it: slash
 * commands carry `user_team` in shared channels and `team_id` otherwise; interactive payloads
 * carry `user.team_id`, else `team.id`; events carry `team_id` (or the user's team).
 */
const userTeam = z
  .object({
    user_team: z.string().optional(),
    team_id: z.string().optional(),
    user: z.union([z.object({ team_id: z.string().optional() }), z.string()]).optional(),
    team: z.object({ id: z.string().optional() }).nullable().optional(),
    event: z.object({ user_team: z.string().optional() }).optional(),
  })
  .transform(
    (body) =>
      body.user_team ??
      body.event?.user_team ??
      (typeof body.user === "object" ? body.user.team_id : undefined) ??
      body.team_id ??
      body.team?.id ??
      undefined,
  );

export const OTHER_TEAM_REFUSAL =
  ":no_entry: This bot answers members of its own workspace only (SLACK_TEAM_ID).";

/**
 * SLACK_TEAM_ID: only members of the home workspace reach the listeners. Anyone else (a Slack
 * Connect guest in a shared channel) gets one private refusal; events from them are dropped.
 */
export function homeTeamOnly(homeTeamId: string, logger: Logger): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const parsed = userTeam.safeParse(args.body);
    const team = parsed.success ? parsed.data : undefined;
    if (team === homeTeamId) {
      await args.next();
      return;
    }
    logger.warn({ team: team ?? "unknown" }, "request from outside the home workspace refused");
    if ("ack" in args && typeof args.ack === "function") await args.ack();
    if ("respond" in args && typeof args.respond === "function") {
      await args
        .respond({ response_type: "ephemeral", replace_original: false, text: OTHER_TEAM_REFUSAL })
        .catch(() => undefined);
    }
  };
}

const usersInfo = z.object({
  user: z.object({ team_id: z.string().optional() }).optional(),
});

/**
 * The workspace of the person who shared something, for events whose envelope names only the
 * workspace the app is installed in: a Slack Connect guest's `link_shared` in a shared channel
 * comes with the home team's `team_id`. The event's `user_team` (or `source_team`) when Slack
 * gives it, else the user's `team_id` from `users.info`; undefined when Slack cannot say.
 */
export async function sharingUserTeam(
  client: Pick<WebClient, "users">,
  event: { user?: string; user_team?: string; source_team?: string },
  logger: Logger,
): Promise<string | undefined> {
  if (event.user_team) return event.user_team;
  if (event.source_team) return event.source_team;
  if (!event.user) return undefined;
  try {
    const parsed = usersInfo.safeParse(await client.users.info({ user: event.user }));
    return parsed.success ? parsed.data.user?.team_id : undefined;
  } catch (error) {
    logger.warn(
      { slackError: describeSlackError(error).code },
      "users.info failed; the sharer's workspace is unknown",
    );
    return undefined;
  }
}
