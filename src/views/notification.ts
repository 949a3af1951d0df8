import type { ActionsBlock, Button, KnownBlock, Overflow, StaticSelect } from "@slack/types";
import { quoteArg } from "../model/command-text.ts";
import {
  CARD_ACTIONS,
  type CardActionValue,
  type CardPayload,
  type CardStatus,
  type DigestPayload,
  type HeldSummary,
  type HoldKind,
  type SnoozeChoice,
  type SummaryPayload,
} from "../model/notification.ts";
import { commandButton, context, fields, header, section, urlButton } from "./blocks.ts";
import { changeMenu } from "./change-menu.ts";
import { paletteClusterUrl } from "./cluster-card.ts";
import { healthEmoji, stateEmoji } from "./emoji.ts";
import { clampText, LIMITS, packLines } from "./limits.ts";
import { bold, code, escapeMrkdwn, mention, slackDate } from "./mrkdwn.ts";
import { scopeArg } from "./scope.ts";

/**
 * Pure Block Kit for channel notifications: the per-cluster card (edited in place), the line
 * added to its thread, the digest and the first-poll summary. Every API-supplied string is
 * escaped, so a cluster called `<!channel>` pings nobody.
 */

export interface RenderedMessage {
  /** plain fallback (notifications, screen readers); escaped like mrkdwn */
  text: string;
  blocks: KnownBlock[];
}

const fallback = (text: string) => clampText(text, LIMITS.fallbackText);

function statusLine(state: string, health: string): string {
  return `${stateEmoji(state)} ${escapeMrkdwn(state || "unknown")}   ${healthEmoji(health)} ${escapeMrkdwn(health || "unknown")}`;
}

function projectLabel(project: string): string {
  return project ? `project ${code(project)}` : "tenant scope";
}

/** The card: the cluster as it is now, plus what changed last. */
export interface CardLinks {
  /** PALETTE_CONSOLE_URL; when given the card has an "Open in Palette" button */
  consoleUrl?: string;
}

/**
 * The card as it is now, with what on-call people did to it (`status`: acknowledged, snoozed,
 * muted) and the buttons to act on it.
 */
export function notificationCard(
  payload: CardPayload,
  links: CardLinks = {},
  status: CardStatus = {},
): RenderedMessage {
  const c = payload.cluster;
  const headline = payload.lines[0] ?? "changed";
  const blocks: KnownBlock[] = [
    header(`${c.name}`),
    section(statusLine(c.state, c.health)),
    fields([
      `*State*\n${escapeMrkdwn(c.state || "unknown")}`,
      `*Health*\n${escapeMrkdwn(c.health || "unknown")}`,
      `*Cluster*\n${code(c.uid)}`,
      `*Scope*\n${projectLabel(c.project)}`,
    ]),
  ];
  const open = payload.alerts.filter((alert) => alert.status === "raised");
  if (open.length > 0) {
    blocks.push(
      section(
        open
          .map((alert) => `:rotating_light: ${bold(alert.alert)}: ${escapeMrkdwn(alert.reason)}`)
          .join("\n"),
      ),
    );
  }
  // a health loss's likely cause (issue 27), read by the poll when its budget allowed
  const cause = payload.lines.find((line) => line.startsWith("Likely cause:"));
  if (cause) blocks.push(context(`:mag: ${escapeMrkdwn(cause)}`));
  const tags = c.tags.length > 0 ? ` · tags ${c.tags.slice(0, 8).map(code).join(" ")}` : "";
  blocks.push(
    context(`Last change: ${escapeMrkdwn(headline)} · ${escapeMrkdwn(payload.at)}${tags}`),
  );
  const said = statusLines(status);
  if (said.length > 0) blocks.push(context(...said));
  blocks.push(cardActions(payload, links, status));
  return {
    text: fallback(`${escapeMrkdwn(c.name)}: ${escapeMrkdwn(headline)}`),
    blocks,
  };
}

/** "👀 Acknowledged by @u, 14:02", "😴 Snoozed by @u until …", "🔇 Muted by @u until … (reason)" */
export function statusLines(status: CardStatus): string[] {
  const lines: string[] = [];
  if (status.ack) {
    lines.push(
      `:eyes: Acknowledged by ${mention(status.ack.userId)}, ${slackDate(status.ack.at, "time")}`,
    );
  }
  if (status.snooze) {
    const s = status.snooze;
    lines.push(
      `:sleeping: Snoozed by ${mention(s.userId)} until ${slackDate(s.untilMs, "dateTime")}`,
    );
  }
  if (status.mute) {
    const m = status.mute;
    const why = m.reason ? ` (${escapeMrkdwn(m.reason)})` : "";
    lines.push(
      `:mute: Muted by ${mention(m.userId)} until ${slackDate(m.untilMs, "dateTime")}${why}`,
    );
  }
  if (status.repavePending) {
    lines.push(":arrows_counterclockwise: Repave pending: Palette holds it until someone approves");
  }
  return lines;
}

const SNOOZE_LABELS: Record<SnoozeChoice, string> = {
  "1h": "1 hour",
  "4h": "4 hours",
  "24h": "24 hours",
  weekday: "Until next weekday 09:00",
};

/** A card action's value: the cluster (and its project), short enough for a select option. */
export function cardActionValue(payload: CardPayload, extra: Record<string, string> = {}): string {
  const value: CardActionValue & Record<string, string> = { c: payload.cluster.uid, ...extra };
  if (payload.cluster.project) value.p = payload.cluster.project;
  return JSON.stringify(value);
}

function cardButton(label: string, actionId: string, value: string): Button {
  return { type: "button", text: { type: "plain_text", text: label }, action_id: actionId, value };
}

/** Acknowledge · Snooze · Mute · Nodes · Workloads · Open in Palette, as the status allows. */
function cardActions(payload: CardPayload, links: CardLinks, status: CardStatus): ActionsBlock {
  const c = payload.cluster;
  const value = cardActionValue(payload);
  const elements: (Button | StaticSelect | Overflow | undefined)[] = [];
  if (!status.ack) elements.push(cardButton("Acknowledge", CARD_ACTIONS.ack, value));
  if (status.snooze) {
    elements.push(cardButton("Unsnooze", CARD_ACTIONS.unsnooze, value));
  } else {
    elements.push({
      type: "static_select",
      action_id: CARD_ACTIONS.snooze,
      placeholder: { type: "plain_text", text: "Snooze" },
      options: (Object.keys(SNOOZE_LABELS) as SnoozeChoice[]).map((choice) => ({
        text: { type: "plain_text", text: SNOOZE_LABELS[choice] },
        value: cardActionValue(payload, { s: choice }),
      })),
    });
  }
  elements.push(
    status.mute
      ? cardButton("Unmute", CARD_ACTIONS.unmute, value)
      : cardButton("Mute cluster…", CARD_ACTIONS.mute, value),
  );
  const where = scopeArg(c.project || undefined);
  elements.push(commandButton("Nodes", `nodes ${quoteArg(c.uid)}${where}`, "card_nodes"));
  elements.push(
    commandButton("Workloads", `workloads ${quoteArg(c.uid)}${where}`, "card_workloads"),
  );
  // what changed before it and who did it, answered to the clicker only (/palette why)
  elements.push(commandButton("Why?", `why ${quoteArg(c.uid)}${where}`, "card_why"));
  if (status.repavePending) {
    elements.push(
      commandButton("Approve repave", `repave approve ${quoteArg(c.uid)}${where}`, "card_repave"),
    );
  }
  if (links.consoleUrl) {
    elements.push(
      urlButton(
        "Open in Palette",
        paletteClusterUrl(links.consoleUrl, c.uid, c.project || undefined),
        "open",
      ),
    );
  }
  elements.push(
    changeMenu(
      { uid: c.uid, projectUid: c.project || undefined, state: c.state, provider: "" },
      "notify",
    ),
  );
  return {
    type: "actions",
    elements: elements.filter((element) => element !== undefined),
  };
}

/** One line in the card's thread (for the end of a snooze or mute: what happened meanwhile). */
export function notificationThreadLine(payload: CardPayload): RenderedMessage {
  if (payload.held) return heldEndLine(payload.cluster.name, payload.held);
  const c = payload.cluster;
  const lines = payload.lines.length > 0 ? payload.lines : ["changed"];
  const icon = payload.worse ? ":warning: " : "";
  const body = lines.map((line) => escapeMrkdwn(line)).join("\n");
  const text = clampText(`${icon}${bold(c.name)}: ${body}`, LIMITS.sectionText);
  return { text: fallback(text), blocks: [section(text)] };
}

const KIND_LABELS: Record<string, string> = {
  new: "new",
  state: "state changed",
  deleted: "deleted",
  "health-lost": "health lost",
  "health-recovered": "health recovered",
  health: "health changed",
  flapping: "flapping",
  settled: "settled",
  "alert-raised": "alerts raised",
  "alert-resolved": "alerts resolved",
};

/** Many changes in one poll for one channel: one message instead of a flood. */
export function notificationDigest(payload: DigestPayload): RenderedMessage {
  const counts = Object.entries(payload.counts)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, n]) => `${n} ${KIND_LABELS[kind] ?? escapeMrkdwn(kind)}`)
    .join(", ");
  const lines = payload.lines.map((line) => `• ${escapeMrkdwn(line)}`);
  const hidden = payload.total - payload.lines.length;
  if (hidden > 0) lines.push(`_…and ${hidden} more clusters_`);
  const blocks: KnownBlock[] = [
    header(`${payload.total} clusters changed`),
    section(escapeMrkdwn(counts || "changes")),
    ...packLines(lines, LIMITS.sectionText, 8).map((chunk) => section(chunk)),
    context(
      `Digest of one poll · ${escapeMrkdwn(payload.at)} · \`/palette clusters\` for the list · likely causes are not read for a roll-up: \`/palette why &lt;cluster&gt;\` tells one cluster's story`,
    ),
  ];
  return { text: fallback(`${payload.total} clusters changed: ${escapeMrkdwn(counts)}`), blocks };
}

/** First poll of a project: what the bot now watches, once, instead of N "new cluster" cards. */
export function notificationSummary(payload: SummaryPayload): RenderedMessage {
  const states = Object.entries(payload.byState)
    .sort((a, b) => b[1] - a[1])
    .map(([state, n]) => `${stateEmoji(state)} ${n} ${escapeMrkdwn(state || "unknown")}`)
    .join("   ");
  const scope =
    payload.projects.length === 0
      ? "tenant scope"
      : payload.projects.map((p) => (p ? code(p) : "tenant scope")).join(", ");
  const blocks: KnownBlock[] = [
    header(`Watching ${payload.total} clusters`),
    section(`${states || "no clusters yet"}\nScope: ${scope}`),
  ];
  if (payload.unhealthy.length > 0) {
    const lines = payload.unhealthy.map(
      (u) => `${healthEmoji(u.health)} ${bold(u.name)} ${escapeMrkdwn(u.health || "unknown")}`,
    );
    blocks.push(
      section(`*Not healthy now (${payload.unhealthy.length})*`),
      ...packLines(lines, LIMITS.sectionText, 2, "clusters").map((chunk) => section(chunk)),
    );
  }
  blocks.push(
    context(`From now on this channel hears each change once · ${escapeMrkdwn(payload.at)}`),
  );
  return {
    text: fallback(`Watching ${payload.total} clusters; ${payload.unhealthy.length} not healthy`),
    blocks,
  };
}

/** A plain notice (e.g. the console's "subscriptions paused"). */
export function notificationNotice(text: string): RenderedMessage {
  const escaped = clampText(escapeMrkdwn(text), LIMITS.sectionText);
  return { text: fallback(escaped), blocks: [section(escaped)] };
}

const HELD_WORDS: Record<HoldKind, { noun: string; while: string; icon: string }> = {
  snooze: { noun: "Snooze", while: "snoozed", icon: ":sleeping:" },
  mute: { noun: "Mute", while: "muted", icon: ":mute:" },
};

/**
 * "🔇 Mute on *web* ended (set by @u: reason): 3 changes while muted (…); now Running, Healthy".
 * A mute is named first: who set it and why matter more than a snooze.
 */
function heldEndLine(clusterName: string, held: HeldSummary): RenderedMessage {
  const ended = [...held.ended].sort((a, b) =>
    a.kind === b.kind ? 0 : a.kind === "mute" ? -1 : 1,
  );
  const first = HELD_WORDS[ended[0]?.kind ?? "snooze"];
  const noun = ended
    .map((hold, i) => (i === 0 ? HELD_WORDS[hold.kind].noun : hold.kind))
    .join(" and ");
  const mute = ended.find((hold) => hold.kind === "mute");
  const early = held.endedBy ? ` early by ${mention(held.endedBy)}` : "";
  const setBy = mute
    ? ` (${ended.length > 1 ? "mute " : ""}set by ${mention(mute.userId)}${mute.reason ? `: ${escapeMrkdwn(mute.reason)}` : ""})`
    : "";
  const count = held.changes.length + held.more;
  const listed = [
    ...held.changes.map(escapeMrkdwn),
    ...(held.more > 0 ? [`…and ${held.more} more`] : []),
  ];
  const now = `${escapeMrkdwn(held.now.state || "unknown")}, ${escapeMrkdwn(held.now.health || "unknown")}`;
  const text = clampText(
    `${first.icon} ${noun} on ${bold(clusterName)} ended${early}${setBy}: ${count} change${count === 1 ? "" : "s"} while ${first.while} (${listed.join(", ")}); now ${now}`,
    LIMITS.sectionText,
  );
  return { text: fallback(text), blocks: [section(text)] };
}
