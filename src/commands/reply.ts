import type { KnownBlock } from "@slack/types";
import type { Scope } from "../palette/api.ts";
import { clampText, LIMITS } from "../views/limits.ts";
import { errorBlocks, usageBlocks } from "../views/message.ts";
import { escapeMrkdwn } from "../views/mrkdwn.ts";
import type { CommandContext, MessageReply, ParsedCommand, VerbSpec, Visibility } from "./types.ts";

/** Small helpers every handler shares: scope choice and reply shapes. */

/** `project:` if given, else the first watched project, else tenant scope. */
export function scopeOf(command: ParsedCommand, ctx: CommandContext): Scope {
  const projectUid = command.project ?? ctx.projects[0];
  return projectUid ? { projectUid } : {};
}

export function messageReply(
  blocks: KnownBlock[],
  text: string,
  visibility: Visibility = "ephemeral",
): MessageReply {
  // the fallback shows in notifications, where Slack also expands mentions: escape it too
  const fallback = clampText(
    escapeMrkdwn(text.replace(/\s+/g, " ").trim()) || " ",
    LIMITS.fallbackText,
  );
  return { kind: "message", text: fallback, blocks, visibility };
}

export function errorReply(mrkdwn: string, plain: string, hint?: string): MessageReply {
  return messageReply(errorBlocks(mrkdwn, hint), plain);
}

export function usageReply(spec: Pick<VerbSpec, "usage">, problem: string): MessageReply {
  return messageReply(usageBlocks(escapeMrkdwn(problem), escapeMrkdwn(spec.usage)), problem);
}

/** The visibility of read-only answers: only `--share` puts them in the channel. */
export function shareVisibility(command: ParsedCommand): Visibility {
  return command.flags.has("share") ? "in_channel" : "ephemeral";
}
