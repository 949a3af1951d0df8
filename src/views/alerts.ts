import type { KnownBlock } from "@slack/types";
import { context, divider, header, section } from "./blocks.ts";
import { healthEmoji } from "./emoji.ts";
import { packLines } from "./limits.ts";
import { bold, code, escapeMrkdwn } from "./mrkdwn.ts";
import { pageBlocks } from "./pages.ts";
import { type ScopeLabel, scopeText } from "./scope.ts";

export interface AlertKind {
  name: string;
  description?: string;
  channels: readonly string[];
}

export interface RaisingCluster {
  uid: string;
  name: string;
  state?: string;
  health?: string;
  /** why, from health conditions */
  reason?: string;
}

export interface AlertsData {
  scope: ScopeLabel;
  kinds: readonly AlertKind[];
  raising: readonly RaisingCluster[];
}

/** Which page of a long answer, and the command that shows it (the page buttons add `--page=`). */
export interface AlertsPaging {
  page?: number;
  command?: string;
}

/** a bound on one answer's pages (the clusters are listed a page at a time) */
const MAX_RAISING_LINES = 2000;

function paged(head: KnownBlock[], body: KnownBlock[], paging: AlertsPaging): KnownBlock[] {
  const { command } = paging;
  return pageBlocks(
    head,
    body,
    paging.page ?? 1,
    command ? (page) => `${command} --page=${page}` : undefined,
  ).blocks;
}

export function alertsBlocks(data: AlertsData & AlertsPaging): KnownBlock[] {
  return paged([header("Alerts")], projectAlertBlocks(data), data);
}

/** Every watched project's alerts in one answer, one part per project, a page at a time. */
export function alertGroupsBlocks(
  data: { projects: readonly AlertsData[] } & AlertsPaging,
): KnownBlock[] {
  const raising = data.projects.reduce((sum, project) => sum + project.raising.length, 0);
  return paged(
    [header(`Alerts (${raising} raising)`)],
    data.projects.flatMap((project, index) => [
      ...(index > 0 ? [divider()] : []),
      ...projectAlertBlocks(project),
    ]),
    data,
  );
}

function projectAlertBlocks(data: AlertsData): KnownBlock[] {
  const blocks: KnownBlock[] = [context(`In ${scopeText(data.scope)}`)];
  if (data.kinds.length === 0) {
    blocks.push(section("This project supports no alert kinds."));
  } else {
    const lines = data.kinds.map((kind) => {
      const channels =
        kind.channels.length > 0
          ? ` _(channels: ${kind.channels.map(escapeMrkdwn).join(", ")})_`
          : "";
      const description = kind.description ? ` — ${escapeMrkdwn(kind.description)}` : "";
      return `• ${bold(kind.name) || "_unnamed_"}${description}${channels}`;
    });
    blocks.push(...packLines(["*Alert kinds*", ...lines], undefined, 3, "kinds").map(section));
  }
  blocks.push(divider());
  if (data.raising.length === 0) {
    blocks.push(
      section(":white_check_mark: No cluster is raising an alert: every one is Healthy."),
    );
  } else {
    const lines = data.raising.map((cluster) => {
      const reason = cluster.reason ? ` — ${escapeMrkdwn(cluster.reason)}` : "";
      return `${healthEmoji(cluster.health)} ${bold(cluster.name) || code(cluster.uid)} · ClusterHealth: ${escapeMrkdwn(cluster.health ?? "unknown")} · ${escapeMrkdwn(cluster.state ?? "unknown state")}${reason}`;
    });
    const title = `*Clusters raising alerts now (${data.raising.length})*`;
    // sections of at most 3,000 characters; the pages split between them
    blocks.push(
      ...packLines([title, ...lines.slice(0, MAX_RAISING_LINES)], undefined, 200, "clusters").map(
        section,
      ),
    );
    blocks.push(context("Details: `/palette cluster &lt;name&gt;`"));
  }
  return blocks;
}
