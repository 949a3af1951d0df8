import type { KnownBlock } from "@slack/types";
import { buttonRows, commandButton, context, fitMessage, header, section } from "./blocks.ts";
import { healthEmoji, stateEmoji } from "./emoji.ts";
import { packLines } from "./limits.ts";
import { bold, code, escapeMrkdwn } from "./mrkdwn.ts";
import { type ScopeLabel, scopeText } from "./scope.ts";

export interface ClusterListItem {
  uid: string;
  name: string;
  state?: string;
  health?: string;
  provider?: string;
  projectName?: string;
}

export interface ClusterListData {
  items: readonly ClusterListItem[];
  scope: ScopeLabel;
  tags: readonly string[];
  /** Palette's total when it reports one */
  total?: number;
  /** the command text that shows the next page; absent on the last page */
  nextCommand?: string;
}

/** Most lines one list shows; past it (or past the section budget) "…and N more". */
export const MAX_LIST_LINES = 100;

export function clusterLine(item: ClusterListItem, withProject: boolean): string {
  const parts = [
    `${stateEmoji(item.state)} ${bold(item.name) || code(item.uid)}`,
    escapeMrkdwn(item.state ?? "unknown state"),
    `${healthEmoji(item.health)} ${escapeMrkdwn(item.health ?? "health unknown")}`,
    escapeMrkdwn(item.provider ?? "unknown provider"),
  ];
  if (withProject && item.projectName) parts.push(`_${escapeMrkdwn(item.projectName)}_`);
  return parts.join(" · ");
}

export function clusterListBlocks(data: ClusterListData): KnownBlock[] {
  const tagText =
    data.tags.length > 0 ? ` tagged ${data.tags.map((tag) => code(tag)).join(", ")}` : "";
  const summary =
    data.total !== undefined && data.total > data.items.length
      ? `${data.items.length} of ${data.total}`
      : `${data.items.length}`;
  const blocks: KnownBlock[] = [
    header(`Clusters (${summary})`),
    context(`In ${scopeText(data.scope)}${tagText}`),
  ];
  if (data.items.length === 0) {
    blocks.push(
      section(
        data.tags.length > 0
          ? "No cluster carries these tags. `/palette clusters` without tags lists them all."
          : "No clusters here yet. `/palette launch` starts one.",
      ),
    );
    return blocks;
  }
  const withProject = !data.scope.projectUid;
  const lines = data.items.slice(0, MAX_LIST_LINES).map((item) => clusterLine(item, withProject));
  const chunks = packLines(lines, undefined, 10);
  const hiddenPastCap = data.items.length - Math.min(data.items.length, MAX_LIST_LINES);
  blocks.push(...chunks.map(section));
  if (hiddenPastCap > 0) blocks.push(context(`_…and ${hiddenPastCap} more_`));
  blocks.push(context("Details: `/palette cluster &lt;name&gt;`"));
  if (data.nextCommand) {
    blocks.push(...buttonRows([commandButton("Next 50", data.nextCommand, "more")]));
  }
  return fitMessage(blocks);
}
