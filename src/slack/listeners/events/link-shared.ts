import type { App } from "@slack/bolt";
import { z } from "zod";
import { unfurlLinks } from "../../../conversation/unfurl.ts";
import { EventClaimStore } from "../../../store/event-claims.ts";
import { unfurlBlocks } from "../../../views/unfurl.ts";
import { sharingUserTeam } from "../../home-team.ts";
import { describeSlackError } from "../../slack-errors.ts";
import type { ConversationOutcome, SlackEdge, WebClient } from "../../types.ts";

const linkShared = z.object({
  channel: z.string().min(1),
  message_ts: z.string().min(1),
  unfurl_id: z.string().optional(),
  // "composer" or "conversations_history" today; another value is read as a posted message
  source: z.string().optional(),
  // who shared it, and (in shared channels, when Slack says) their workspace
  user: z.string().optional(),
  user_team: z.string().optional(),
  source_team: z.string().optional(),
  links: z.array(z.object({ url: z.string().max(3_000) })).max(100),
});

const delivery = z.object({ event_id: z.string().min(1) });

/**
 * A Palette console link posted (or typed in the composer): its cluster or project unfurled under
 * the message with `chat.unfurl`. Only links inside PALETTE_PROJECTS unfurl (src/conversation/unfurl.ts),
 * and under SLACK_TEAM_ID only those shared by a member of the home workspace.
 */
export function registerLinkShared(app: App, edge: SlackEdge): void {
  app.event("link_shared", async (args) => {
    edge.onConversation?.("link_shared", await unfurl(edge, args));
  });
}

async function unfurl(
  edge: SlackEdge,
  { event, body, client }: { event: unknown; body: unknown; client: WebClient },
): Promise<ConversationOutcome> {
  const parsed = linkShared.safeParse(event);
  const envelope = delivery.safeParse(body);
  if (!parsed.success || !envelope.success) {
    edge.logger.warn("a link_shared event of unexpected shape; ignored");
    return "ignored";
  }
  const shared = parsed.data;
  const { db, clock, palette, projects, consoleUrl } = edge.commandDeps;
  if (!(await new EventClaimStore(db, clock).claim(`event:${envelope.data.event_id}`))) {
    return "duplicate";
  }
  // SLACK_TEAM_ID: the envelope names the home workspace even for a guest's link in a shared
  // channel, so the sharer's own workspace decides (unknown: no unfurl)
  const home = edge.slack.homeTeamId;
  if (home) {
    const team = await sharingUserTeam(client, shared, edge.logger);
    if (team !== home) {
      edge.logger.info(
        { team: team ?? "unknown" },
        "a link shared from outside the home workspace; not unfurled",
      );
      return "ignored";
    }
  }
  const views = await unfurlLinks(
    shared.links.map((link) => link.url),
    { palette, projects, consoleUrl, logger: edge.logger },
  );
  if (views.size === 0) return "ignored";
  const unfurls = Object.fromEntries(
    [...views].map(([url, view]) => [url, { blocks: unfurlBlocks(view) }]),
  );
  // a link still in the composer is addressed by its unfurl_id; a posted one by its message
  const where =
    shared.source === "composer" && shared.unfurl_id
      ? { unfurl_id: shared.unfurl_id, source: "composer" as const }
      : { channel: shared.channel, ts: shared.message_ts };
  try {
    await client.chat.unfurl({ ...where, unfurls });
  } catch (error) {
    edge.logger.warn({ slackError: describeSlackError(error).code }, "chat.unfurl failed");
  }
  return "answered";
}
