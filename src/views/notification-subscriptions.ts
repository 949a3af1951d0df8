import type { KnownBlock } from "@slack/types";
import type { UndeliveredGroup } from "../model/notification.ts";
import type { Subscription } from "../model/subscription.ts";
import { context, header, section } from "./blocks.ts";
import { LIMITS, packLines } from "./limits.ts";
import { code, escapeMrkdwn, mention } from "./mrkdwn.ts";

const notifications = (n: number) => `${n} notification${n === 1 ? "" : "s"}`;

/**
 * What did not reach the channel, by why: dead letters (`/palette subscriptions retry` re-sends
 * them) and messages held while the channel was closed to the bot (subscribing again re-sends them).
 */
export function undeliveredBlocks(groups: readonly UndeliveredGroup[]): KnownBlock[] {
  const part = (
    status: UndeliveredGroup["status"],
    title: (n: number) => string,
    after: string,
  ): KnownBlock[] => {
    const mine = groups.filter((group) => group.status === status);
    const total = mine.reduce((sum, group) => sum + group.count, 0);
    if (total === 0) return [];
    const lines = mine.map((group) => `• ${group.count} × ${escapeMrkdwn(group.reason)}`);
    const [first = "", ...rest] = packLines(lines, LIMITS.sectionText - 200, 3, "reasons");
    return [
      section(`${title(total)}\n${first}`),
      ...rest.map((chunk) => section(chunk)),
      context(after),
    ];
  };
  return [
    ...part(
      "dead",
      (n) => `:warning: *${notifications(n)} could not be delivered here:*`,
      "`/palette subscriptions retry` sends them again, oldest first.",
    ),
    ...part(
      "held",
      (n) => `:double_vertical_bar: *${notifications(n)} held* while I could not post here:`,
      "`/palette subscribe` here resumes the subscriptions and sends them, oldest first.",
    ),
  ];
}

/**
 * A channel's subscriptions, one line each, paused ones with Slack's reason; then what could not
 * be delivered.
 */
export function subscriptionListBlocks(
  subs: readonly Subscription[],
  undelivered: readonly UndeliveredGroup[] = [],
): KnownBlock[] {
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
  const list =
    subs.length === 0
      ? [section("This channel has no subscriptions. `/palette subscribe` adds one.")]
      : [
          ...packLines(lines, LIMITS.sectionText, 10, "subscriptions").map((chunk) =>
            section(chunk),
          ),
          context("`/palette unsubscribe <id>` or `/palette unsubscribe all` stops them."),
        ];
  return [
    header(`Subscriptions in this channel (${subs.length})`),
    ...list,
    ...undeliveredBlocks(undelivered),
  ];
}
