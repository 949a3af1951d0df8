import type { KnownBlock } from "@slack/types";
import { quoteArg } from "../model/command-text.ts";
import {
  buttonRows,
  commandButton,
  context,
  divider,
  fitMessage,
  header,
  section,
} from "./blocks.ts";
import { healthEmoji, stateEmoji } from "./emoji.ts";
import { packLines } from "./limits.ts";
import { bold, code, escapeMrkdwn } from "./mrkdwn.ts";
import { type ScopeLabel, scopeArg, scopeText } from "./scope.ts";

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

/** " tagged `a`, `b`" for the scope line; empty without tags. */
function taggedPhrase(tags: readonly string[]): string {
  return tags.length > 0 ? ` tagged ${tags.map((tag) => code(tag)).join(", ")}` : "";
}

export function clusterListBlocks(data: ClusterListData): KnownBlock[] {
  const tagText = taggedPhrase(data.tags);
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

export interface ClusterGroupsData {
  tags: readonly string[];
  /** one list per watched project, in PALETTE_PROJECTS order */
  groups: readonly ClusterListData[];
}

/** Lines each project shows when several share one message. */
export const MAX_GROUP_LINES = 25;

/** Every watched project's first page in one message, a section per project with its own "Next 50". */
export function clusterGroupsBlocks(data: ClusterGroupsData): KnownBlock[] {
  const tagText = taggedPhrase(data.tags);
  const shown = data.groups.reduce((sum, group) => sum + group.items.length, 0);
  const blocks: KnownBlock[] = [
    header(`Clusters (${shown})`),
    context(`In ${data.groups.length} watched projects${tagText}`),
  ];
  data.groups.forEach((group, index) => {
    const total =
      group.total !== undefined && group.total > group.items.length
        ? `${group.items.length} of ${group.total}`
        : `${group.items.length}`;
    blocks.push(divider(), section(`*${scopeText(group.scope)}* · ${total}`));
    if (group.items.length === 0) {
      blocks.push(
        context(
          data.tags.length > 0 ? "No cluster carries these tags here." : "No clusters here yet.",
        ),
      );
      return;
    }
    const lines = group.items.slice(0, MAX_GROUP_LINES).map((item) => clusterLine(item, false));
    blocks.push(...packLines(lines, undefined, 3).map(section));
    const hidden = group.items.length - Math.min(group.items.length, MAX_GROUP_LINES);
    // lines cut here are on the project's first page: "More" opens that page, else the next one
    const more = hidden > 0 ? listCommand(data.tags, group.scope.projectUid) : group.nextCommand;
    if (hidden > 0) blocks.push(context(`_…and ${hidden} more in this project_`));
    if (more) {
      const label = `More in ${group.scope.projectName ?? group.scope.projectUid ?? "tenant"}`;
      blocks.push(...buttonRows([commandButton(label, more, `more_${index}`)]));
    }
  });
  blocks.push(
    context("One project: add `project:&lt;uid&gt;`. Details: `/palette cluster &lt;name&gt;`"),
  );
  return fitMessage(blocks);
}

/** `clusters <tags> project:<uid>`: the one-project list a "More" button opens. */
function listCommand(tags: readonly string[], projectUid: string | undefined): string {
  return ["clusters", ...tags.map(quoteArg)].join(" ") + scopeArg(projectUid);
}
