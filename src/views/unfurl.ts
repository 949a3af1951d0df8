import type { KnownBlock } from "@slack/types";
import { quoteArg } from "../model/command-text.ts";
import { buttonRows, commandButton, context, fields, section } from "./blocks.ts";
import type { ClusterCardData } from "./cluster-card.ts";
import { healthEmoji, stateEmoji } from "./emoji.ts";
import { clampText, LIMITS } from "./limits.ts";
import { code, escapeMrkdwn } from "./mrkdwn.ts";
import { scopeArg } from "./scope.ts";

/**
 * What a pasted Palette console link unfurls to: smaller than `/palette cluster`'s card (an
 * unfurl sits under someone else's message), with the buttons that answer the next question.
 */
export function clusterUnfurlBlocks(data: ClusterCardData): KnownBlock[] {
  const value = (text: string | undefined) => (text ? escapeMrkdwn(text) : "_unknown_");
  const project = data.projectUid
    ? data.projectName
      ? escapeMrkdwn(data.projectName)
      : code(data.projectUid)
    : "tenant";
  const where = scopeArg(data.projectUid);
  const uid = quoteArg(data.uid);
  const blocks: KnownBlock[] = [
    section(
      `${stateEmoji(data.state)} *${clampText(escapeMrkdwn(data.name || data.uid), 150)}* · Palette cluster`,
    ),
    fields([
      `*State*\n${value(data.state)}`,
      `*Health*\n${healthEmoji(data.health)} ${value(data.health)}`,
      `*Provider*\n${value(data.provider)}`,
      `*Kubernetes*\n${value(data.kubernetesVersion)}`,
      `*Project*\n${project}`,
    ]),
  ];
  const reason = data.healthReasons[0];
  if (reason) {
    blocks.push(context(clampText(`:warning: ${escapeMrkdwn(reason)}`, LIMITS.contextText)));
  }
  blocks.push(
    ...buttonRows([
      commandButton("Nodes", `nodes ${uid}${where}`, "nodes"),
      commandButton("Workloads", `workloads ${uid}${where}`, "workloads"),
    ]),
  );
  return blocks;
}

export interface ProjectCounts {
  projectUid: string;
  projectName?: string;
  /** undefined where Palette did not say */
  total?: number;
  running?: number;
  healthy?: number;
  unhealthy?: number;
  errored?: number;
}

/** A project link: how many clusters, and how many need a look. */
export function projectUnfurlBlocks(counts: ProjectCounts): KnownBlock[] {
  const name = counts.projectName ? escapeMrkdwn(counts.projectName) : code(counts.projectUid);
  const shown = (n: number | undefined) => (n === undefined ? "_unknown_" : String(n));
  const calm = (counts.unhealthy ?? 0) === 0 && (counts.errored ?? 0) === 0;
  return [
    section(
      `${calm ? ":large_green_circle:" : ":large_orange_circle:"} *${name}* · Palette project`,
    ),
    fields([
      `*Clusters*\n${shown(counts.total)}`,
      `*Running*\n${shown(counts.running)}`,
      `*Healthy*\n${shown(counts.healthy)}`,
      `*Unhealthy*\n${shown(counts.unhealthy)}`,
      `*Failed*\n${shown(counts.errored)}`,
    ]),
    ...buttonRows([
      commandButton("Clusters", `clusters project:${counts.projectUid}`, "clusters"),
      commandButton("Alerts", `alerts project:${counts.projectUid}`, "alerts"),
    ]),
  ];
}

/** One link's unfurl, as data: the conversation use case builds it, the Slack edge renders it. */
export type UnfurlView =
  | { kind: "cluster"; data: ClusterCardData }
  | { kind: "project"; data: ProjectCounts };

export function unfurlBlocks(view: UnfurlView): KnownBlock[] {
  return view.kind === "cluster" ? clusterUnfurlBlocks(view.data) : projectUnfurlBlocks(view.data);
}
