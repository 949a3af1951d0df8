import type { KnownBlock } from "@slack/types";
import type { CardPayload, DigestPayload, SummaryPayload } from "../model/notification.ts";
import { context, fields, header, section, urlButton } from "./blocks.ts";
import { paletteClusterUrl } from "./cluster-card.ts";
import { healthEmoji, stateEmoji } from "./emoji.ts";
import { clampText, LIMITS, packLines } from "./limits.ts";
import { bold, code, escapeMrkdwn } from "./mrkdwn.ts";

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

export function notificationCard(payload: CardPayload, links: CardLinks = {}): RenderedMessage {
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
  const tags = c.tags.length > 0 ? ` · tags ${c.tags.slice(0, 8).map(code).join(" ")}` : "";
  blocks.push(
    context(`Last change: ${escapeMrkdwn(headline)} · ${escapeMrkdwn(payload.at)}${tags}`),
  );
  const openButton = links.consoleUrl
    ? urlButton(
        "Open in Palette",
        paletteClusterUrl(links.consoleUrl, c.uid, c.project || undefined),
        "open",
      )
    : undefined;
  if (openButton) blocks.push({ type: "actions", elements: [openButton] });
  return {
    text: fallback(`${escapeMrkdwn(c.name)}: ${escapeMrkdwn(headline)}`),
    blocks,
  };
}

/** One line in the card's thread. */
export function notificationThreadLine(payload: CardPayload): RenderedMessage {
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
      `Digest of one poll · ${escapeMrkdwn(payload.at)} · \`/palette clusters\` for the list`,
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
