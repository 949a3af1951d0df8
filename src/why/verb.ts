import { personalRefusalLines } from "../identity/acting.ts";
import { quoteArg } from "../model/command-text.ts";
import type { ClusterOverview } from "../palette/schemas.ts";
import { flagValue } from "../verb-kit/parse.ts";
import {
  errorReply,
  messageReply,
  readScopes,
  shareVisibility,
  usageReply,
} from "../verb-kit/reply.ts";
import { resolveCluster } from "../verb-kit/resolve.ts";
import type { CommandContext, ParsedCommand, Reply, VerbSpec } from "../verb-kit/types.ts";
import { escapeMrkdwn } from "../views/mrkdwn.ts";
import { scopeArg } from "../views/scope.ts";
import type { WhyData } from "../views/why.ts";
import { whyEdgeHost } from "./edge-host.ts";
import { gatherStory, type WhyReads } from "./gather.ts";
import { type ClusterNow, likelyCause } from "./likely-cause.ts";
import { parseSince } from "./range.ts";
import { warningsFirst } from "./timeline.ts";

/**
 * `/palette why <cluster> [since 24h|7d|<date>]` (also `timeline`): what changed before the
 * cluster's trouble, and who did it. One private answer: the likely cause on top, then Palette's
 * audit, Palette's events and the bot's own record, newest first, 20 a page with a More button.
 * The cluster is looked up in the watched projects only, so one outside them answers nothing.
 */

export const WHY_PAGE = 20;
/** events kept before normal ones give way to warnings */
export const WHY_EVENT_LIMIT = 60;

export const whyVerb: VerbSpec = {
  name: "why",
  usage: "why <cluster|edge host> [since 24h|7d|<date>] [project:<uid>]",
  summary:
    "what changed before the cluster's trouble and who did it: Palette's audit and events and this bot's record, newest first, with the likely cause",
  examples: [
    "/palette why web-prod",
    "/palette why web-prod since 7d",
    "/palette timeline web-prod since 2026-11-20",
  ],
  run: (command, ctx) => runWhy(command, ctx),
};

async function runWhy(command: ParsedCommand, ctx: CommandContext): Promise<Reply> {
  const [ref, ...rest] = command.args;
  if (ref === undefined) return usageReply(whyVerb, "Which cluster? Give its name or UID.");
  // Palette's audit names people by e-mail: ALLOW_WHY (default everyone) says who reads it,
  // asked before anything is read (issue 31)
  if (!(await ctx.policy.allows(ctx.requester.userId, "why"))) {
    await ctx.audit.record({
      userId: ctx.requester.userId,
      action: "read",
      target: `why ${ref}`.slice(0, 200),
      outcome: "denied",
      detail: JSON.stringify({ reason: "not on ALLOW_WHY" }),
    });
    const hint = ctx.policy.grantHint("why");
    return errorReply(
      ":no_entry: You are not allowed to ask why: it reads Palette's audit.",
      "You are not allowed to ask why.",
      hint ? escapeMrkdwn(hint) : undefined,
    );
  }
  if (rest.length > 0 && rest[0]!.toLowerCase() !== "since") {
    return usageReply(
      whyVerb,
      "After the cluster, only `since 24h`, `since 7d` or `since <date>`.",
    );
  }
  const now = ctx.clock.now();
  const untilFlag = Number(flagValue(command, "until"));
  const untilMs = Number.isFinite(untilFlag) && untilFlag > 0 && untilFlag <= now ? untilFlag : now;
  const since = parseSince(rest.slice(1), untilMs);
  if (!since.ok) return usageReply(whyVerb, since.problem);
  const pageFlag = Number(flagValue(command, "page") ?? "1");
  const page = Number.isInteger(pageFlag) && pageFlag >= 1 ? pageFlag : 1;

  const found = await resolveCluster(
    ref,
    readScopes(command, ctx),
    ctx,
    (uid, projectUid) =>
      `why ${quoteArg(uid)}${scopeArg(projectUid)}${rest.length > 0 ? ` ${rest.join(" ")}` : ""}`,
  );
  if (found.kind === "reply") {
    if (found.reason !== "unknown") return found.reply;
    // no cluster by that name: it may be an edge host (issue 39, item 4)
    const edgeAnswer = await whyEdgeHost(ref, command, ctx, {
      since,
      untilMs,
      page,
      pageSize: WHY_PAGE,
      eventLimit: WHY_EVENT_LIMIT,
      refusal: (action, projectUid) => personalRefusals(ctx, projectUid, action).refusal,
    });
    return edgeAnswer ?? found.reply;
  }
  const { cluster: resolved, scope } = found;
  const projectUid = resolved.projectUid ?? scope.projectUid;
  const cluster = { uid: resolved.uid, name: resolved.name, ...(projectUid ? { projectUid } : {}) };

  const [story, current, timeZone] = await Promise.all([
    gatherStory(
      { palette: ctx.palette, db: ctx.db, ...personalRefusals(ctx, projectUid) },
      cluster,
      { sinceMs: since.sinceMs, untilMs },
    ),
    clusterNow(resolved, scope, ctx),
    ctx.readerTimeZone ? ctx.readerTimeZone(ctx.requester.userId).catch(() => "UTC") : "UTC",
  ]);
  const cause = likelyCause(story.entries, current.now, untilMs);
  const { kept, hiddenNormal } = warningsFirst(story.entries, WHY_EVENT_LIMIT);
  const pages = Math.max(1, Math.ceil(kept.length / WHY_PAGE));
  const shownPage = Math.min(page, pages);
  const more =
    shownPage < pages
      ? `why ${quoteArg(cluster.uid)}${scopeArg(projectUid)} since ${since.label} --page=${shownPage + 1} --until=${untilMs}`
      : undefined;
  const data: WhyData = {
    cluster,
    rangeLabel: since.label,
    sinceMs: since.sinceMs,
    untilMs,
    timeZone,
    cause,
    entries: kept.slice((shownPage - 1) * WHY_PAGE, shownPage * WHY_PAGE),
    page: shownPage,
    pages,
    total: kept.length,
    hiddenNormal,
    stoppedEarly: story.stoppedEarly,
    unavailable: story.unavailable,
    calls: story.calls + current.calls,
    ...(more ? { moreCommand: more } : {}),
  };
  await ctx.audit.record({
    userId: ctx.requester.userId,
    action: "read",
    target: `why ${cluster.name} (${cluster.uid})`.slice(0, 200),
    outcome: "granted",
  });
  return messageReply(
    { screen: "why", data },
    whyFallback(cluster.name, cause.kind),
    shareVisibility(command),
  );
}

/** IDENTITY=strict: a stream Palette refused the person's key for is told in their name */
function personalRefusals(
  ctx: CommandContext,
  projectUid: string | undefined,
  eventsAction = "read this cluster's events",
): Pick<WhyReads, "refusal"> {
  const { actingAs, identity } = ctx;
  if (!actingAs || !identity) return {};
  return {
    refusal: async (error, source) =>
      (
        await personalRefusalLines(
          error,
          actingAs,
          source === "audit" ? "read Palette's audit log" : eventsAction,
          projectUid,
          identity,
        )
      )?.plain,
  };
}

function whyFallback(name: string, kind: string): string {
  if (kind === "no-trouble") return `Why ${name}: no current trouble; its story since then.`;
  return `Why ${name}: the likely cause and its story.`;
}

/** State and health now: the search already has them; found by UID, the overview says. */
async function clusterNow(
  resolved: {
    uid: string;
    summary?: {
      status?: { state?: string | null; health?: { state?: string | null } | null } | null;
    };
    cluster?: { status?: { state?: string | null } | null };
  },
  scope: { projectUid?: string },
  ctx: CommandContext,
): Promise<{ now: ClusterNow; calls: number }> {
  const status = resolved.summary?.status;
  if (status) {
    return {
      now: {
        ...(status.state ? { state: status.state } : {}),
        ...(status.health?.state ? { health: status.health.state } : {}),
      },
      calls: 0,
    };
  }
  let overview: ClusterOverview | undefined;
  try {
    overview = await ctx.palette.getClusterOverview(resolved.uid, scope);
  } catch {
    overview = undefined;
  }
  const state = overview?.status?.state ?? resolved.cluster?.status?.state ?? undefined;
  const health = overview?.status?.health?.state ?? undefined;
  return { now: { ...(state ? { state } : {}), ...(health ? { health } : {}) }, calls: 1 };
}
