import type { KnownBlock } from "@slack/types";
import { buttonRows, commandButton, context, fitMessage, section } from "./blocks.ts";
import { code, escapeMrkdwn } from "./mrkdwn.ts";
import { type ScopeLabel, scopeText } from "./scope.ts";

/** One row of `/palette edge hosts` (issue 39, item 3). Strings are raw: escaped here. */
export interface EdgeHostRow {
  name: string;
  state?: string;
  health?: string;
  clusterName?: string;
}

export interface EdgeHostGroup {
  scope: ScopeLabel;
  hosts: readonly EdgeHostRow[];
  /** the command that shows this project's next page, when Palette has more */
  next?: string;
  /** the page shown, from 1 */
  page: number;
}

/** rows per section: a section's text stays far under Slack's 3,000 characters */
const ROWS_PER_SECTION = 10;

function emoji(health: string | undefined): string {
  if (health === "unhealthy") return "🔴";
  return health === "healthy" ? "🟢" : "⚪";
}

export function edgeHostRowText(row: EdgeHostRow): string {
  const parts = [
    `${emoji(row.health)} ${code(row.name)}`,
    escapeMrkdwn(row.state ?? "unknown"),
    escapeMrkdwn(row.health ?? "no health reported"),
    row.clusterName ? `cluster ${code(row.clusterName)}` : undefined,
  ].filter((part): part is string => part !== undefined);
  return parts.join(" · ");
}

export function edgeHostListBlocks(data: {
  groups: readonly EdgeHostGroup[];
  filter: string;
}): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  for (const group of data.groups) {
    blocks.push(
      section(
        `*${scopeText(group.scope)}*: ${group.hosts.length === 0 ? "no edge hosts" : "edge hosts"}${data.filter ? ` (${escapeMrkdwn(data.filter)})` : ""}${group.page > 1 ? `, page ${group.page}` : ""}`,
      ),
    );
    for (let start = 0; start < group.hosts.length; start += ROWS_PER_SECTION) {
      const lines = group.hosts.slice(start, start + ROWS_PER_SECTION).map(edgeHostRowText);
      blocks.push(section(lines.join("\n")));
    }
    if (group.next) {
      blocks.push(...buttonRows([commandButton("More", group.next, "edge-hosts-more")]));
      blocks.push(context(`or \`/palette ${escapeMrkdwn(group.next)}\``));
    }
  }
  return fitMessage(blocks);
}
