import type { SlackConfig } from "../config.ts";
import { type Answer, bounded, type Probe, type ServerDate } from "./doctor-probe.ts";
import type { CheckLine } from "./doctor-report.ts";

/**
 * The doctor's Slack checks, over real HTTP with the bot's own tokens: `auth.test` (the token
 * and, in its `x-oauth-scopes` header, the scopes granted), the Socket Mode app token
 * (`apps.connections.open`) or the signing secret of HTTP mode, and every subscribed channel
 * the bot must be in (`conversations.info`). Slack's `Date` header is kept for the clock check.
 */

/**
 * The bot scopes `manifest.yml` asks for (test/unit/app/doctor-scopes.test.ts keeps this list
 * equal to the manifest's `oauth_config.scopes.bot`). A copy, not a read of the manifest:
 * the image does not ship the manifest, and the doctor runs in the image.
 */
export const BOT_SCOPES = [
  "commands",
  "chat:write",
  "im:write",
  "files:write",
  "usergroups:read",
  "channels:read",
  "groups:read",
  "users:read",
  "app_mentions:read",
  "im:history",
  "channels:history",
  "groups:history",
  "reactions:write",
  "links:read",
  "links:write",
  "users:read.email",
] as const;

/** The scopes a token lacks, from Slack's `x-oauth-scopes` header (comma-separated). Pure. */
export function missingScopes(granted: string, wanted: readonly string[] = BOT_SCOPES): string[] {
  const have = new Set(
    granted
      .split(",")
      .map((scope) => scope.trim())
      .filter((scope) => scope.length > 0),
  );
  return wanted.filter((scope) => !have.has(scope));
}

interface SlackAnswer {
  ok: boolean;
  error?: string;
  [field: string]: unknown;
}

/** What each Slack error code means for the operator, for the codes a first install meets. */
function slackTokenFix(variable: string, error: string): string {
  switch (error) {
    case "invalid_auth":
    case "not_authed":
    case "account_inactive":
    case "token_revoked":
    case "token_expired":
      return variable === "SLACK_APP_TOKEN"
        ? "create an app-level token with connections:write (Basic Information → App-Level Tokens) and set SLACK_APP_TOKEN to it (xapp-…)"
        : "set SLACK_BOT_TOKEN to the Bot User OAuth Token (xoxb-…) on the app's OAuth & Permissions page; reinstall the app if it was revoked";
    case "not_allowed_token_type":
      return variable === "SLACK_APP_TOKEN"
        ? "SLACK_APP_TOKEN holds another kind of token: it wants the app-level token (xapp-…), not the bot token"
        : "SLACK_BOT_TOKEN holds another kind of token: it wants the bot token (xoxb-…)";
    case "ratelimited":
      return "Slack rate-limited the check: run the doctor again in a minute";
    default:
      // an answer that is not JSON did not come from Slack's Web API at all
      return error.startsWith("HTTP ")
        ? "SLACK_API_URL does not answer like Slack's Web API: unset it (https://slack.com/api/) or fix the proxy in front of it"
        : `check ${variable}; Slack's error code is explained at https://api.slack.com/methods`;
  }
}

export interface SlackCheckResult {
  lines: CheckLine[];
  date?: ServerDate;
}

export async function slackChecks(
  slack: SlackConfig,
  channels: readonly string[] | undefined,
  probe: Probe,
): Promise<SlackCheckResult> {
  const call = (method: string, token: string, params: Record<string, string> = {}) =>
    bounded(probe, `Slack ${method}`, async (signal) => {
      const response = await probe.fetch(`${slack.apiUrl}${method}`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${token}`,
          "Content-Type": "application/x-www-form-urlencoded; charset=utf-8",
        },
        body: new URLSearchParams(params).toString(),
        signal,
      });
      const receivedAt = probe.clock.now();
      const text = await response.text();
      let body: SlackAnswer;
      try {
        body = JSON.parse(text) as SlackAnswer;
      } catch {
        body = { ok: false, error: `HTTP ${response.status}, not JSON` };
      }
      if (response.status === 429) body = { ok: false, error: "ratelimited" };
      return { status: response.status, headers: response.headers, body, receivedAt };
    });

  const lines: CheckLine[] = [];
  const auth = await call("auth.test", slack.botToken.reveal());
  const date = auth.ok ? dateOf(auth.value) : undefined;
  if (!auth.ok) {
    lines.push({
      check: "slack.auth",
      status: "fail",
      result: `Slack did not answer auth.test at ${slack.apiUrl}: ${auth.reason}`,
      fix: "check the network path to Slack (egress to slack.com:443; behind a proxy, HTTPS_PROXY, and that NO_PROXY does not name Slack) and SLACK_API_URL if set",
    });
  } else if (!auth.value.body.ok) {
    const error = auth.value.body.error ?? "unknown_error";
    lines.push({
      check: "slack.auth",
      status: "fail",
      result: `Slack refused SLACK_BOT_TOKEN (${error})`,
      fix: slackTokenFix("SLACK_BOT_TOKEN", error),
    });
  } else {
    const body = auth.value.body;
    const team = typeof body.team === "string" ? body.team : "?";
    const teamId = typeof body.team_id === "string" ? body.team_id : "?";
    const user = typeof body.user === "string" ? body.user : "?";
    lines.push({
      check: "slack.auth",
      status: "pass",
      result: `bot token works: @${user} in workspace ${team} (${teamId})`,
    });
    lines.push(scopesLine(auth.value.headers.get("x-oauth-scopes")));
    if (slack.homeTeamId !== undefined && slack.homeTeamId !== teamId) {
      lines.push({
        check: "slack.team",
        status: "fail",
        result: `SLACK_TEAM_ID is ${slack.homeTeamId} but the bot token belongs to workspace ${teamId}: the bot would refuse everyone as from another workspace`,
        fix: `set SLACK_TEAM_ID=${teamId}, or unset it`,
      });
    }
  }
  if (!lines.some((line) => line.check === "slack.scopes")) {
    lines.push(skipped("slack.scopes", "slack.auth"));
  }

  lines.push(await connectionLine(slack, call));

  if (!auth.ok || !auth.value.body.ok) {
    lines.push(skipped("slack.channels", "slack.auth"));
  } else if (channels === undefined) {
    lines.push(skipped("slack.channels", "the store (its subscriptions name the channels)"));
  } else {
    lines.push(await channelsLine(slack, channels, call));
  }
  return { lines, ...(date ? { date } : {}) };
}

type SlackCall = (
  method: string,
  token: string,
  params?: Record<string, string>,
) => Promise<Answer<{ status: number; headers: Headers; body: SlackAnswer; receivedAt: number }>>;

function scopesLine(header: string | null): CheckLine {
  if (header === null) {
    return {
      check: "slack.scopes",
      status: "warn",
      result: "Slack did not say which scopes the token has (no x-oauth-scopes header)",
      fix: `compare the scopes on the app's OAuth & Permissions page with manifest.yml: ${BOT_SCOPES.join(", ")}`,
    };
  }
  const missing = missingScopes(header);
  if (missing.length === 0) {
    return {
      check: "slack.scopes",
      status: "pass",
      result: `every bot scope of manifest.yml granted (${BOT_SCOPES.length})`,
    };
  }
  return {
    check: "slack.scopes",
    status: "fail",
    result: `the bot token lacks ${missing.length === 1 ? "a scope" : "scopes"} manifest.yml asks for: ${missing.join(", ")}`,
    fix: "add them on the app's OAuth & Permissions page (or re-create the app from manifest.yml), then reinstall the app to the workspace: a scope counts only after the reinstall",
  };
}

async function connectionLine(slack: SlackConfig, call: SlackCall): Promise<CheckLine> {
  if (slack.mode === "http") {
    return {
      check: "slack.mode",
      status: "pass",
      result:
        "HTTP mode: SLACK_SIGNING_SECRET is set (only Slack can prove it right: a wrong one shows as 401s on /slack/events in the bot's log)",
      fix: "",
    };
  }
  const open = await call("apps.connections.open", slack.appToken!.reveal());
  if (!open.ok) {
    return {
      check: "slack.mode",
      status: "fail",
      result: `Socket Mode: Slack did not answer apps.connections.open: ${open.reason}`,
      fix: "check the network path to Slack (egress to slack.com:443 and wss-primary.slack.com; behind a proxy, HTTPS_PROXY)",
    };
  }
  if (!open.value.body.ok) {
    const error = open.value.body.error ?? "unknown_error";
    const socketOff = error === "invalid_auth" || error === "not_authed";
    return {
      check: "slack.mode",
      status: "fail",
      result: `Socket Mode: Slack refused SLACK_APP_TOKEN (${error})`,
      fix: `${slackTokenFix("SLACK_APP_TOKEN", error)}${socketOff ? "; and turn Socket Mode on (Settings → Socket Mode)" : ""}`,
    };
  }
  return {
    check: "slack.mode",
    status: "pass",
    result: "Socket Mode: SLACK_APP_TOKEN opens a connection",
  };
}

/** At most this many conversations.info calls at once (Slack's Tier 3 allows ~50 a minute). */
const CHANNEL_CONCURRENCY = 3;

async function channelsLine(
  slack: SlackConfig,
  channels: readonly string[],
  call: SlackCall,
): Promise<CheckLine> {
  if (channels.length === 0) {
    return {
      check: "slack.channels",
      status: "pass",
      result:
        "no channel subscribed yet (`/palette subscribe` in a channel the bot was invited to)",
    };
  }
  const token = slack.botToken.reveal();
  const outside: string[] = [];
  const unknown: string[] = [];
  const queue = [...channels];
  let stalled = false;
  const worker = async () => {
    for (let channel = queue.shift(); channel !== undefined; channel = queue.shift()) {
      // once Slack stops answering, the rest would each wait out the bound too
      if (stalled) {
        unknown.push(`${channel} (not asked: Slack stopped answering)`);
        continue;
      }
      const info = await call("conversations.info", token, { channel });
      if (!info.ok) {
        stalled = true;
        unknown.push(`${channel} (${info.reason})`);
        continue;
      }
      const body = info.value.body;
      const member = (body.channel as { is_member?: unknown } | undefined)?.is_member;
      if (!body.ok) {
        // a private channel the bot is not in is "channel_not_found" to it
        if (body.error === "channel_not_found") outside.push(channel);
        else unknown.push(`${channel} (${body.error ?? "unknown_error"})`);
      } else if (member !== true) {
        outside.push(channel);
      }
    }
  };
  await Promise.all(Array.from({ length: CHANNEL_CONCURRENCY }, worker));
  const count = `${channels.length} subscribed channel${channels.length === 1 ? "" : "s"}`;
  if (outside.length > 0) {
    return {
      check: "slack.channels",
      status: "fail",
      result: `the bot is not in ${outside.sort().join(", ")} (of ${count}): its notifications there fail`,
      fix: "invite the bot in each (`/invite @Palette` in the channel), or `/palette unsubscribe` there",
    };
  }
  if (unknown.length > 0) {
    return {
      check: "slack.channels",
      status: "warn",
      result: `could not check ${unknown.sort().join(", ")} (of ${count})`,
      fix: "conversations.info needs channels:read and groups:read; run the doctor again",
    };
  }
  return { check: "slack.channels", status: "pass", result: `the bot is in all ${count}` };
}

function dateOf(value: { headers: Headers; receivedAt: number }): ServerDate | undefined {
  const header = value.headers.get("date");
  const at = header ? Date.parse(header) : Number.NaN;
  return Number.isFinite(at) ? { server: at, receivedAt: value.receivedAt } : undefined;
}

export function skipped(check: string, needs: string): CheckLine {
  return { check, status: "skip", result: `not checked: it needs ${needs}` };
}
