import type { KnownBlock } from "@slack/types";
import { quoteArg } from "../model/command-text.ts";
import {
  buttonRows,
  commandButton,
  context,
  fields,
  fitMessage,
  header,
  urlButton,
} from "./blocks.ts";
import { changeMenu, withChangeMenu } from "./change-menu.ts";
import { healthEmoji, stateEmoji } from "./emoji.ts";
import { clampList, clampText, LIMITS } from "./limits.ts";
import { code, escapeMrkdwn } from "./mrkdwn.ts";
import { type ScopeLabel, scopeArg, scopeText } from "./scope.ts";
import { formatAge } from "./time.ts";

export interface ClusterCardData {
  uid: string;
  name: string;
  /** the project the cluster lives in; undefined for a tenant-level cluster */
  projectUid?: string;
  projectName?: string;
  state?: string;
  health?: string;
  /** health conditions and similar reasons, newest first */
  healthReasons: readonly string[];
  provider?: string;
  kubernetesVersion?: string;
  createdAt?: string;
  apiEndpoint?: string;
  cloudConfig?: { kind: string; uid: string };
  /** a virtual cluster's own state (Paused, Running …) */
  virtualState?: string;
  /** Palette holds a repave of it for approval (status.repave.state Pending) */
  repavePending?: boolean;
  tags: readonly string[];
  /** where the lookup happened, said in the reply */
  scope: ScopeLabel;
}

export interface CardEnv {
  now: number;
  /** PALETTE_CONSOLE_URL, ends with "/" */
  consoleUrl: string;
}

export function paletteClusterUrl(consoleUrl: string, uid: string, projectUid?: string): string {
  const base = consoleUrl.endsWith("/") ? consoleUrl : `${consoleUrl}/`;
  const id = encodeURIComponent(uid);
  return projectUid
    ? `${base}projects/${encodeURIComponent(projectUid)}/clusters/${id}/overview`
    : `${base}admin/clusters/${id}/overview`;
}

const unknown = "_unknown_";

export function clusterCardBlocks(data: ClusterCardData, env: CardEnv): KnownBlock[] {
  const value = (text: string | undefined) => (text ? escapeMrkdwn(text) : unknown);
  const project = data.projectUid
    ? `${data.projectName ? `${escapeMrkdwn(data.projectName)} ` : ""}${code(data.projectUid)}`
    : "tenant";
  const cloudConfig = data.cloudConfig
    ? `${escapeMrkdwn(data.cloudConfig.kind)} ${code(data.cloudConfig.uid)}`
    : unknown;
  const blocks: KnownBlock[] = [
    header(data.name || data.uid),
    fields([
      `*State*\n${stateEmoji(data.state)} ${value(data.state)}`,
      `*Health*\n${healthEmoji(data.health)} ${value(data.health)}`,
      `*Provider*\n${value(data.provider)}`,
      `*Kubernetes*\n${value(data.kubernetesVersion)}`,
      `*Age*\n${value(formatAge(data.createdAt, env.now))}`,
      `*Project*\n${project}`,
      `*API endpoint*\n${data.apiEndpoint ? code(data.apiEndpoint) : unknown}`,
      `*Cloud config*\n${cloudConfig}`,
    ]),
  ];
  const reasons = clampList(data.healthReasons, 3);
  if (reasons.shown.length > 0) {
    const text = reasons.shown.map((reason) => `:warning: ${escapeMrkdwn(reason)}`).join("\n");
    const more = reasons.hidden > 0 ? `\n_…and ${reasons.hidden} more_` : "";
    blocks.push(context(clampText(text, LIMITS.contextText - more.length) + more));
  }
  const tags = clampList(data.tags, 10);
  const tagText = tags.shown.map((tag) => code(tag)).join(" ");
  blocks.push(
    context(
      `UID ${code(data.uid)} · looked up in ${scopeText(data.scope)}${tagText ? ` · tags ${tagText}` : ""}${tags.hidden > 0 ? ` …and ${tags.hidden} more` : ""}`,
    ),
  );
  const where = scopeArg(data.projectUid);
  const uid = quoteArg(data.uid);
  if (data.repavePending) {
    blocks.push(
      context(
        ":arrows_counterclockwise: Palette holds a repave of this cluster (its nodes replaced for a pack change) until someone approves it.",
      ),
    );
  }
  const rows = buttonRows([
    data.repavePending
      ? commandButton("Approve repave", `repave approve ${uid}${where}`, "repave")
      : undefined,
    commandButton("Nodes", `nodes ${uid}${where}`, "nodes"),
    commandButton("Workloads", `workloads ${uid}${where}`, "workloads"),
    commandButton("Kubeconfig", `kubeconfig ${uid}${where}`, "kubeconfig"),
    commandButton("Logs", `logs ${uid}${where}`, "logs"),
    urlButton(
      "Open in Palette",
      paletteClusterUrl(env.consoleUrl, data.uid, data.projectUid),
      "open",
    ),
    // the cluster's story and its likely cause, answered privately (/palette why)
    commandButton("Why?", `why ${uid}${where}`, "why"),
  ]);
  const menu = changeMenu(
    {
      uid: data.uid,
      projectUid: data.projectUid,
      state: data.state ?? "",
      provider: data.provider ?? "",
      virtualState: data.virtualState,
    },
    "card",
  );
  blocks.push(...withChangeMenu(rows, menu));
  return fitMessage(blocks);
}
