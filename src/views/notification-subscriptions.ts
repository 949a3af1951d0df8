import type { KnownBlock } from "@slack/types";
import type { Subscription } from "../model/subscription.ts";
import { context, header, section } from "./blocks.ts";
import { LIMITS, packLines } from "./limits.ts";
import { code, escapeMrkdwn, mention } from "./mrkdwn.ts";

/** A channel's subscriptions, one line each, paused ones with Slack's reason. */
export function subscriptionListBlocks(subs: readonly Subscription[]): KnownBlock[] {
  const lines = subs.map((sub) => {
    const filters = [
      sub.project ? `project ${code(sub.project)}` : "all watched projects",
      sub.tag ? `tag ${code(sub.tag)}` : undefined,
    ]
      .filter(Boolean)
      .join(", ");
    const paused = sub.pausedReason
      ? ` · :double_vertical_bar: paused (${escapeMrkdwn(sub.pausedReason)}); \`/palette subscribe\` again resumes it`
      : "";
    return `*#${sub.id}* ${escapeMrkdwn(sub.kind)} · ${filters} · by ${mention(sub.createdBy)}${paused}`;
  });
  return [
    header(`Subscriptions in this channel (${subs.length})`),
    ...packLines(lines, LIMITS.sectionText, 10, "subscriptions").map((chunk) => section(chunk)),
    context("`/palette unsubscribe <id>` or `/palette unsubscribe all` stops them."),
  ];
}
