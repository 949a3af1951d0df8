import type { HomeView, KnownBlock } from "@slack/types";
import type { Permission } from "../access/types.ts";
import { context, divider, header, section, urlButton } from "./blocks.ts";
import { paletteClusterUrl } from "./cluster-card.ts";
import { healthEmoji, isHealthy, stateEmoji } from "./emoji.ts";
import { channelRef, holdLine } from "./holds.ts";
import { clampList, clampText, LIMITS, moreLabel, packLines } from "./limits.ts";
import { bold, code, escapeMrkdwn } from "./mrkdwn.ts";

/**
 * The App Home tab for one user: the fleet at a glance, what they may do, and what the channels
 * they are in are subscribed to. Pure: the Slack edge (src/slack/home-input.ts) gathers the data.
 */

/** Slack's limit for a home tab (messages allow 50). */
export const HOME_BLOCK_LIMIT = 100;
/** Our choice: enough to act on, short enough to read on a phone. */
export const HOME_MAX_PROJECTS = 15;
export const HOME_MAX_UNHEALTHY = 15;
export const HOME_MAX_SUBSCRIPTION_LINES = 40;
export const HOME_MAX_HOLD_LINES = 20;

export interface FleetCluster {
  uid: string;
  name: string;
  /** "" or undefined: tenant scope */
  projectUid?: string;
  projectName?: string;
  state: string;
  /** Healthy | UnHealthy | Unknown | "" */
  health: string;
  provider: string;
}

export interface FleetSnapshot {
  /** ms since the epoch when this picture was taken */
  at: number;
  clusters: FleetCluster[];
}

export interface HomeSubscription {
  /** channel ID (C…/G…) */
  channel: string;
  /** clusters | alerts | all */
  kind: string;
  project?: string;
  tag?: string;
}

/** A snooze or mute running in one of the user's channels. */
export interface HomeHold {
  channel: string;
  kind: "snooze" | "mute";
  clusterName: string;
  userId: string;
  reason?: string;
  untilMs: number;
}

export interface HomePermission {
  allowed: boolean;
  /** shown when not allowed, e.g. "ask an admin to add you to ALLOW_LAUNCH" */
  hint: string;
}

export interface AppHomeInput {
  userId: string;
  /** the fleet, or why it could not be read (already safe for users: no secrets) */
  fleet: FleetSnapshot | { error: string };
  /** the permissions to list; one left out is not shown */
  permissions: Partial<Record<Permission, HomePermission>>;
  /** undefined: could not be read */
  subscriptions: HomeSubscription[] | undefined;
  /** the snoozes and mutes of the user's channels; null: could not be read; absent: not shown */
  holds?: HomeHold[] | null;
  /** PALETTE_CONSOLE_URL, ends with "/" */
  consoleUrl: string;
  /** ms since the epoch, for "as of … (N min ago)" */
  now: number;
  /**
   * IDENTITY=linked or strict: whom the user acts as in Palette (no `link`: not linked yet);
   * null: could not be read; absent: the bot acts as its service account only
   */
  identity?: HomeIdentity | null;
  /**
   * The radar's risks by severity (critical, warning, info); null: could not be read; absent:
   * not shown
   */
  risks?: Record<string, number> | null;
}

export interface HomeIdentity {
  link?: { paletteUserName: string; org?: string; linkedAt: string };
}

/** The App Home's identity buttons (src/slack/listeners/actions/identity-home.ts answers them). */
export const HOME_LINK_ACTION = "identity_link";
export const HOME_UNLINK_ACTION = "identity_unlink";

/**
 * Where a cluster opens in the Palette console. Project clusters live under their project;
 * tenant-scoped ones under the admin view.
 */
export function clusterConsoleUrl(consoleUrl: string, cluster: FleetCluster): string {
  return paletteClusterUrl(consoleUrl, cluster.uid, cluster.projectUid || undefined);
}

/** Health not known yet (a cluster being provisioned) is not counted as unhealthy. */
function isUnhealthy(cluster: FleetCluster): boolean {
  const health = cluster.health.trim().toLowerCase();
  return health !== "" && health !== "unknown" && !isHealthy(cluster.health);
}

function formatUtc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function formatAge(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return `${minutes} min ago`;
  return `${Math.round(minutes / 60)} h ago`;
}

/** "Running 3 · Provisioning 1", most common first, each with its emoji. */
function tally(values: string[], emoji: (value: string) => string): string {
  const counts = new Map<string, number>();
  for (const value of values) {
    const key = value.trim() === "" ? "Unknown" : value.trim();
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([value, count]) => `${emoji(value)} ${escapeMrkdwn(value)} ${count}`)
    .join(" · ");
}

interface ProjectGroup {
  label: string;
  clusters: FleetCluster[];
  unhealthy: number;
}

function groupByProject(clusters: FleetCluster[]): ProjectGroup[] {
  const groups = new Map<string, ProjectGroup>();
  for (const cluster of clusters) {
    const key = cluster.projectUid ?? "";
    const group = groups.get(key) ?? {
      label: cluster.projectName || cluster.projectUid || "Tenant",
      clusters: [],
      unhealthy: 0,
    };
    group.clusters.push(cluster);
    if (isUnhealthy(cluster)) group.unhealthy += 1;
    groups.set(key, group);
  }
  return [...groups.values()].sort(
    (a, b) => b.unhealthy - a.unhealthy || a.label.localeCompare(b.label),
  );
}

function fleetBlocks(fleet: AppHomeInput["fleet"], input: AppHomeInput): KnownBlock[] {
  if ("error" in fleet) {
    return [section(`:warning: The fleet could not be read: ${escapeMrkdwn(fleet.error)}`)];
  }
  const unhealthy = fleet.clusters.filter(isUnhealthy);
  const groups = groupByProject(fleet.clusters);
  const blocks: KnownBlock[] = [
    context(
      `${fleet.clusters.length} cluster${fleet.clusters.length === 1 ? "" : "s"} in ${groups.length} project${groups.length === 1 ? "" : "s"}` +
        ` · ${unhealthy.length} unhealthy · as of ${formatUtc(fleet.at)} (${formatAge(input.now - fleet.at)})`,
    ),
  ];
  if (fleet.clusters.length === 0) {
    blocks.push(section("No clusters in the bot's scope."));
    return blocks;
  }

  const projects = clampList(groups, HOME_MAX_PROJECTS);
  for (const group of projects.shown) {
    const count = group.clusters.length;
    blocks.push(
      section(
        [
          `${bold(group.label)} · ${count} cluster${count === 1 ? "" : "s"}`,
          tally(
            group.clusters.map((cluster) => cluster.state),
            stateEmoji,
          ),
          tally(
            group.clusters.map((cluster) => cluster.health),
            healthEmoji,
          ),
        ].join("\n"),
      ),
    );
  }
  if (projects.hidden > 0) blocks.push(context(`_${moreLabel(projects.hidden)} projects_`));

  blocks.push(divider(), header("Unhealthy now"));
  if (unhealthy.length === 0) {
    blocks.push(section(":white_check_mark: Every cluster with a known health is healthy."));
    return blocks;
  }
  const sorted = [...unhealthy].sort((a, b) => a.name.localeCompare(b.name));
  const shown = clampList(sorted, HOME_MAX_UNHEALTHY);
  for (const cluster of shown.shown) {
    const where = cluster.projectName || cluster.projectUid || "tenant";
    const block = section(
      `${healthEmoji(cluster.health)} ${bold(cluster.name) || code(cluster.uid)} · ${escapeMrkdwn(where)}\n` +
        `${stateEmoji(cluster.state)} ${escapeMrkdwn(cluster.state || "Unknown")} · ` +
        `${escapeMrkdwn(cluster.health)} · ${escapeMrkdwn(cluster.provider || "unknown provider")}`,
    );
    const button = urlButton(
      "Open in Palette",
      clusterConsoleUrl(input.consoleUrl, cluster),
      `home:${cluster.uid}`,
    );
    blocks.push(button ? { ...block, accessory: button } : block);
  }
  if (shown.hidden > 0) blocks.push(context(`_${moreLabel(shown.hidden)}_`));
  return blocks;
}

const PERMISSION_LABELS: Record<Permission, string> = {
  launch: "Launch clusters",
  kubeconfig: "Download kubeconfigs",
  subscribe: "Change channel subscriptions",
  ack: "Acknowledge notification cards",
  scale: "Scale machine pools",
  maintenance: "Cordon, approve repaves, pause",
  logs: "Fetch cluster logs",
  backup: "Back up clusters",
  upgrade: "Upgrade cluster profiles",
  delete: "Delete clusters",
  audit: "Export the audit",
  freeze: "Freeze changes, lift anyone's freeze",
  why: "Ask why (Palette's audit of a cluster)",
};

function permissionBlocks(permissions: AppHomeInput["permissions"]): KnownBlock[] {
  const listed = (Object.keys(PERMISSION_LABELS) as Permission[]).filter(
    (permission) => permissions[permission] !== undefined,
  );
  const lines = listed.map((permission) => {
    const { allowed, hint } = permissions[permission]!;
    const label = PERMISSION_LABELS[permission];
    if (allowed) return `:white_check_mark: ${label}: yes`;
    return `:no_entry_sign: ${label}: no${hint ? ` (${escapeMrkdwn(hint)})` : ""}`;
  });
  return [header("Your permissions"), section(lines.join("\n"))];
}

function identityBlocks(identity: HomeIdentity | null | undefined): KnownBlock[] {
  if (identity === undefined) return [];
  const blocks: KnownBlock[] = [header("Your Palette identity")];
  if (identity === null) {
    blocks.push(section(":warning: Your link to Palette could not be read just now."));
    return [...blocks, divider()];
  }
  const link = identity.link;
  const text = link
    ? `:bust_in_silhouette: You act in Palette as ${bold(link.paletteUserName)}${link.org ? ` in ${escapeMrkdwn(link.org)}` : ""}, linked ${code(link.linkedAt.slice(0, 16).replace("T", " "))} UTC.`
    : ":key: Not linked: a kubeconfig or a launch here runs as *your* Palette user, so link it first with a personal API key.";
  blocks.push({
    type: "section",
    text: { type: "mrkdwn", text },
    accessory: {
      type: "button",
      action_id: link ? HOME_UNLINK_ACTION : HOME_LINK_ACTION,
      text: { type: "plain_text", text: link ? "Unlink" : "Link…" },
      ...(link ? {} : { style: "primary" as const }),
      value: link ? "unlink" : "link",
    },
  });
  return [...blocks, divider()];
}

function subscriptionLine(subscription: HomeSubscription): string {
  const parts = [channelRef(subscription.channel), escapeMrkdwn(subscription.kind)];
  if (subscription.project) parts.push(`project ${code(subscription.project)}`);
  if (subscription.tag) parts.push(`tag ${code(subscription.tag)}`);
  return parts.join(" · ");
}

function subscriptionBlocks(subscriptions: HomeSubscription[] | undefined): KnownBlock[] {
  const blocks: KnownBlock[] = [header("Subscriptions in your channels")];
  if (subscriptions === undefined) {
    blocks.push(section(":warning: Subscriptions could not be read just now."));
    return blocks;
  }
  if (subscriptions.length === 0) {
    blocks.push(
      section(
        "None yet. In a channel, type `/palette subscribe` to get cluster notifications there.",
      ),
    );
    return blocks;
  }
  const sorted = [...subscriptions].sort(
    (a, b) => a.channel.localeCompare(b.channel) || a.kind.localeCompare(b.kind),
  );
  const { shown, hidden } = clampList(sorted, HOME_MAX_SUBSCRIPTION_LINES);
  const lines = shown.map(subscriptionLine);
  if (hidden > 0) lines.push(`_${moreLabel(hidden)}_`);
  // 40 short lines fit in one section; clampText keeps a pathological tag from breaking it.
  blocks.push(section(clampText(lines.join("\n"), LIMITS.sectionText)));
  return blocks;
}

function holdBlocks(holds: HomeHold[] | null | undefined): KnownBlock[] {
  if (holds === undefined) return [];
  const blocks: KnownBlock[] = [header("Mutes and snoozes in your channels")];
  if (holds === null) {
    blocks.push(section(":warning: Mutes and snoozes could not be read just now."));
  } else if (holds.length === 0) {
    blocks.push(section("No cluster is muted or snoozed in your channels."));
  } else {
    const sorted = [...holds].sort((a, b) => a.untilMs - b.untilMs);
    const { shown, hidden } = clampList(sorted, HOME_MAX_HOLD_LINES);
    const lines = shown.map(holdLine);
    if (hidden > 0) lines.push(`_${moreLabel(hidden)}_`);
    // reasons are at most 200 characters: 20 lines fit in two sections at most
    for (const chunk of packLines(lines, LIMITS.sectionText, 3, "holds"))
      blocks.push(section(chunk));
  }
  return [...blocks, divider()];
}

/** The radar's counts (issue 28): what `/palette risks` would list, in one line. */
function riskBlocks(risks: Record<string, number> | null | undefined): KnownBlock[] {
  if (risks === undefined) return [];
  const blocks: KnownBlock[] = [header("On the radar")];
  if (risks === null) {
    blocks.push(section(":warning: The radar's risks could not be read just now."));
  } else {
    const critical = risks.critical ?? 0;
    const warning = risks.warning ?? 0;
    const info = risks.info ?? 0;
    blocks.push(
      section(
        critical + warning + info === 0
          ? "Nothing on the radar: no certificate near expiry, no repave waiting, no failing backup."
          : `:red_circle: ${critical} critical · :large_orange_circle: ${warning} warning${warning === 1 ? "" : "s"} · :information_source: ${info} newer profile version${info === 1 ? "" : "s"} · \`/palette risks\` lists them`,
      ),
    );
  }
  return [...blocks, divider()];
}

export function buildAppHome(input: AppHomeInput): HomeView {
  const blocks: KnownBlock[] = [
    header("Palette fleet"),
    ...fleetBlocks(input.fleet, input),
    divider(),
    ...permissionBlocks(input.permissions),
    divider(),
    ...identityBlocks(input.identity),
    ...subscriptionBlocks(input.subscriptions),
    divider(),
    ...holdBlocks(input.holds),
    ...riskBlocks(input.risks),
    context("Type `/palette help` in any channel for the commands."),
  ];
  // The caps above keep us far below the limit; this is the belt for future edits.
  const fitted =
    blocks.length <= HOME_BLOCK_LIMIT
      ? blocks
      : [
          ...blocks.slice(0, HOME_BLOCK_LIMIT - 1),
          context(`_${moreLabel(blocks.length - HOME_BLOCK_LIMIT + 1)} blocks_`),
        ];
  return { type: "home", blocks: fitted };
}
