import { z } from "zod";

/**
 * What the user reads when a Slack call made on their behalf fails. Pure: it looks only at the
 * shape of the error (WebClient and Bolt errors carry a `code`, platform errors `data.error`).
 */
const slackErrorShape = z.object({
  code: z.string(),
  data: z.object({ error: z.string(), needed: z.string().optional() }).partial().optional(),
  retryAfter: z.number().optional(),
  statusCode: z.number().optional(),
});

export interface SlackFailure {
  /** Slack's error string (`not_in_channel`), or the WebClient/Bolt error code */
  code: string;
  /** one sentence for the user, mrkdwn-safe */
  message: string;
}

const PLATFORM_MESSAGES: Record<string, string> = {
  channel_not_found:
    "Slack says the conversation was not found: the bot may not be able to see it. Invite the bot (`/invite @Palette`) and try again.",
  not_in_channel:
    "The bot is not in this channel. Invite it with `/invite @Palette` and try again.",
  is_archived: "This channel is archived, so the bot cannot post in it.",
  cannot_dm_bot: "Slack does not let the bot send a direct message to a bot user.",
  user_not_found: "Slack could not find your user to open a direct message.",
  user_disabled: "Slack says this user account is deactivated.",
  messages_tab_disabled:
    "The bot cannot send you a direct message: its Messages tab is turned off. Ask a Slack admin to enable it.",
  missing_scope:
    "The Slack app is missing a permission (scope) for this. Ask a Slack admin to reinstall it from the manifest.",
  not_allowed_token_type: "The bot's Slack token is of the wrong type; check SLACK_BOT_TOKEN.",
  invalid_auth: "Slack rejected the bot's token; check SLACK_BOT_TOKEN.",
  not_authed: "Slack rejected the bot's token; check SLACK_BOT_TOKEN.",
  token_revoked: "The bot's Slack token was revoked; reinstall the app.",
  account_inactive: "The bot's Slack token was revoked; reinstall the app.",
  ratelimited: "Slack is rate-limiting the bot. Try again in a minute.",
  file_uploads_disabled: "File uploads are disabled in this workspace, so the file cannot be sent.",
  file_upload_size_restricted: "Slack refused the file: it is larger than this workspace allows.",
  expired_trigger_id: "That took too long and Slack closed the window. Try again.",
  invalid_trigger_id: "That took too long and Slack closed the window. Try again.",
};

export function describeSlackError(error: unknown): SlackFailure {
  const parsed = slackErrorShape.safeParse(error);
  if (!parsed.success) {
    return {
      code: "unknown",
      message: "Slack did not accept the bot's answer; the details are in the bot's log.",
    };
  }
  const { code, data, retryAfter, statusCode } = parsed.data;
  switch (code) {
    case "slack_webapi_platform_error": {
      const slackCode = data?.error ?? "unknown_error";
      const known = PLATFORM_MESSAGES[slackCode];
      return {
        code: slackCode,
        message:
          known ?? `Slack refused the request (\`${slackCode.replace(/[^a-z0-9_]/gi, "")}\`).`,
      };
    }
    case "slack_webapi_rate_limited_error":
      return {
        code: "ratelimited",
        message: `Slack is rate-limiting the bot. Try again in ${Math.max(1, Math.ceil(retryAfter ?? 60))} s.`,
      };
    case "slack_webapi_http_error":
      return {
        code: `http_${statusCode ?? 0}`,
        message: `Slack answered with HTTP ${statusCode ?? "error"}. Try again shortly.`,
      };
    case "slack_webapi_request_error":
      return { code: "network", message: "The bot could not reach Slack. Try again shortly." };
    case "slack_bolt_respond_error":
      return {
        code: `respond_${statusCode ?? 0}`,
        message:
          "Slack no longer accepts answers to that request (it expired). Run the command again.",
      };
    default:
      return {
        code,
        message: "Slack did not accept the bot's answer; the details are in the bot's log.",
      };
  }
}
