import type { KnownBlock } from "@slack/types";
import type { EdgeHostCause } from "../model/edge-host-cause.ts";
import { formatWall } from "../model/wall-clock.ts";
import { context, divider, fitMessage, header, section } from "./blocks.ts";
import { clampText } from "./limits.ts";
import { code, escapeMrkdwn } from "./mrkdwn.ts";
import { type StoryPage, storyBlocks } from "./why.ts";

/**
 * `why <edge host>` (issue 39, item 4): why a host went dark. The likely-cause line on top (the
 * bot's own measure of when it went dark, its last event, a write before it, its cluster's
 * trouble), then the host's events, Palette's audit of it, its cluster's story and the bot's
 * record of its health, newest first. Pure; every name and message is escaped here.
 */

export interface WhyEdgeData extends StoryPage {
  host: {
    uid: string;
    name: string;
    projectUid?: string;
    state?: string;
    health?: string;
    agentVersion?: string;
    cluster?: string;
  };
  rangeLabel: string;
  sinceMs: number;
  untilMs: number;
  cause: EdgeHostCause;
}

const MESSAGE_CHARS = 200;

/** The likely-cause line, in mrkdwn. */
export function edgeCauseLine(cause: EdgeHostCause, timeZone: string): string {
  const at = (ms: number) => `\`${formatWall(ms, timeZone)}\``;
  const said = (text: string) => escapeMrkdwn(clampText(text.replace(/\s+/g, " "), MESSAGE_CHARS));
  if (cause.kind === "no-trouble") {
    const now = [cause.state, cause.health].filter(Boolean).map((word) => escapeMrkdwn(word!));
    return `:white_check_mark: *No current trouble*${now.length > 0 ? ` (${now.join(", ")})` : ""}: nothing to explain.`;
  }
  const parts: string[] = [];
  if (cause.trouble === "unpaired") {
    parts.push("unpaired: it waits for someone to pair it again");
  } else if (cause.botSince !== undefined) {
    const healthy =
      cause.lastSeenHealthy !== undefined ? `, last seen healthy ${at(cause.lastSeenHealthy)}` : "";
    parts.push(`unhealthy since ${at(cause.botSince)}, the bot saw it${healthy}`);
  } else if (cause.noRecord) {
    parts.push("unhealthy; the bot has no record of its health (it has not read this host yet)");
  } else {
    parts.push("unhealthy; the bot has not measured since when");
  }
  if (cause.lastEvent) {
    const message = cause.lastEvent.message ? ` — ${said(cause.lastEvent.message)}` : "";
    parts.push(
      `last event *${escapeMrkdwn(cause.lastEvent.what)}* at ${at(cause.lastEvent.at)}${message}`,
    );
  } else if (cause.message) {
    parts.push(`Palette says: ${said(cause.message)}`);
  }
  if (cause.write) {
    const who =
      cause.write.who?.kind === "palette"
        ? ` by ${cause.write.who.name === "Palette" ? "Palette" : code(cause.write.who.name)}`
        : "";
    const message = cause.write.message ? ` — ${said(cause.write.message)}` : "";
    parts.push(
      `before it, *${escapeMrkdwn(cause.write.what)}*${who} at ${at(cause.write.at)}${message}`,
    );
  }
  if (cause.cluster) {
    parts.push(
      cause.cluster.trouble
        ? `cluster ${code(cause.cluster.name)} went *${escapeMrkdwn(cause.cluster.trouble.what)}* at ${at(cause.cluster.trouble.at)}`
        : `cluster ${code(cause.cluster.name)} shows no trouble event in this range`,
    );
  }
  return `:mag: *Likely cause:* ${parts.join("; ")}.`;
}

/** The fallback text: plain words only (messageReply escapes it), no Palette-supplied message. */
export function whyEdgeText(data: WhyEdgeData): string {
  const cause = data.cause;
  const now =
    cause.kind === "no-trouble"
      ? "no current trouble; its story since then"
      : `${cause.trouble}: the likely cause and its story`;
  return `Why edge host ${data.host.name}: ${now}.`;
}

export function whyEdgeBlocks(data: WhyEdgeData): KnownBlock[] {
  const host = data.host;
  const facts = [
    `UID ${code(host.uid)}`,
    ...(host.state ? [escapeMrkdwn(host.state)] : []),
    ...(host.health ? [escapeMrkdwn(host.health)] : []),
    ...(host.agentVersion ? [`agent ${code(host.agentVersion)}`] : []),
    ...(host.cluster ? [`cluster ${code(host.cluster)}`] : []),
  ];
  return fitMessage([
    header(`Why: edge host ${host.name || host.uid}`),
    context(
      `Since ${escapeMrkdwn(data.rangeLabel)} (${code(formatWall(data.sinceMs, data.timeZone))} → ${code(formatWall(data.untilMs, data.timeZone))}, ${escapeMrkdwn(data.timeZone)}) · ${facts.join(" · ")}`,
    ),
    section(edgeCauseLine(data.cause, data.timeZone)),
    divider(),
    ...storyBlocks(data),
  ]);
}
