import type { Scope } from "../palette/api.ts";
import { clampText, LIMITS } from "../views/limits.ts";
import { escapeMrkdwn } from "../views/mrkdwn.ts";
import type { ReplyView } from "../views/reply.ts";
import type { CommandContext, MessageReply, ParsedCommand, VerbSpec, Visibility } from "./types.ts";

/** Small helpers every handler shares: scope choice and reply shapes. */

/**
 * Where a read looks: `project:` narrows it to one project; without it a read covers every watched
 * project (PALETTE_PROJECTS), one scope each, or the tenant when none is set.
 */
export function readScopes(
  command: Pick<ParsedCommand, "project">,
  ctx: Pick<CommandContext, "projects">,
): Scope[] {
  if (command.project) return [{ projectUid: command.project }];
  if (ctx.projects.length > 0) return ctx.projects.map((projectUid) => ({ projectUid }));
  return [{}];
}

export function messageReply(
  view: ReplyView,
  text: string,
  visibility: Visibility = "ephemeral",
): MessageReply {
  // the fallback shows in notifications, where Slack also expands mentions: escape it too
  const fallback = clampText(
    escapeMrkdwn(text.replace(/\s+/g, " ").trim()) || " ",
    LIMITS.fallbackText,
  );
  return { kind: "message", text: fallback, view, visibility };
}

/** A short notice screen (mrkdwn already escaped), with an optional hint under it. */
export function notice(mrkdwn: string, hint?: string): ReplyView {
  return { screen: "notice", data: { mrkdwn, hint } };
}

export function errorReply(mrkdwn: string, plain: string, hint?: string): MessageReply {
  return messageReply({ screen: "error", data: { mrkdwn, hint } }, plain);
}

export function usageReply(spec: Pick<VerbSpec, "usage">, problem: string): MessageReply {
  return messageReply(
    { screen: "usage", data: { problem: escapeMrkdwn(problem), usage: escapeMrkdwn(spec.usage) } },
    problem,
  );
}

/** The visibility of read-only answers: only `--share` puts them in the channel. */
export function shareVisibility(command: ParsedCommand): Visibility {
  return command.flags.has("share") ? "in_channel" : "ephemeral";
}
