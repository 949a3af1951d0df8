import type { KnownBlock } from "@slack/types";
import type { HoldKind } from "../model/notification.ts";
import { context, section } from "./blocks.ts";
import { LIMITS, packLines } from "./limits.ts";
import { bold, code, escapeMrkdwn, mention, slackDate } from "./mrkdwn.ts";

/** A running snooze or mute as lists show it (`/palette mutes`, the App Home). */
export interface HoldEntry {
  kind: HoldKind;
  clusterName: string;
  userId: string;
  reason?: string;
  untilMs: number;
  /** shown as `in #channel` when the list spans channels */
  channel?: string;
}

/** A channel ID renders as a clickable `#name`; anything else is shown as escaped text. */
export function channelRef(channel: string): string {
  return /^[CG][A-Z0-9]{2,}$/.test(channel) ? `<#${channel}>` : code(channel);
}

/** "🔇 *web* muted by @u until <date> · reason" */
export function holdLine(hold: HoldEntry): string {
  const icon = hold.kind === "mute" ? ":mute:" : ":sleeping:";
  const where = hold.channel ? ` in ${channelRef(hold.channel)}` : "";
  const why = hold.reason ? ` · ${escapeMrkdwn(hold.reason)}` : "";
  const name = bold(hold.clusterName) || code(hold.clusterName);
  return `${icon} ${name}${where} ${hold.kind}d by ${mention(hold.userId)} until ${slackDate(hold.untilMs, "dateTime")}${why}`;
}

/** `/palette mutes`: the channel's running holds, soonest end first, in as few sections as fit. */
export function holdListBlocks(data: { holds: readonly HoldEntry[] }): KnownBlock[] {
  const lines = data.holds.map(holdLine);
  const chunks = packLines(lines, LIMITS.sectionText, 8, "holds");
  const [first = "", ...rest] = chunks;
  return [
    section(`*Mutes and snoozes in this channel (${data.holds.length})*\n${first}`),
    ...rest.map((chunk) => section(chunk)),
    context("`/palette unmute &lt;cluster&gt;` ends a mute; Unsnooze on the card ends a snooze."),
  ];
}
