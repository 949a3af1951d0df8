import type { KnownBlock } from "@slack/types";
import { context, section } from "./blocks.ts";

/**
 * Short messages: errors, refusals, notices, usage. Every argument is mrkdwn the caller has
 * already escaped (dynamic parts through `escapeMrkdwn`).
 */

export function errorBlocks(mrkdwn: string, hint?: string): KnownBlock[] {
  const blocks: KnownBlock[] = [section(`:x: ${mrkdwn}`)];
  if (hint) blocks.push(context(hint));
  return blocks;
}

export function noticeBlocks(mrkdwn: string, hint?: string): KnownBlock[] {
  const blocks: KnownBlock[] = [section(mrkdwn)];
  if (hint) blocks.push(context(hint));
  return blocks;
}

export function usageBlocks(problem: string, usage: string, suggestion?: string): KnownBlock[] {
  const lines = [`:grey_question: ${problem}`, `Usage: \`/palette ${usage}\``];
  if (suggestion) lines.push(suggestion);
  return [section(lines.join("\n")), context("`/palette help` lists every command.")];
}
