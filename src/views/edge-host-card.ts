import type { KnownBlock } from "@slack/types";
import { quoteArg } from "../model/command-text.ts";
import {
  buttonRows,
  commandButton,
  context,
  fields,
  fitMessage,
  header,
  section,
  urlButton,
} from "./blocks.ts";
import { code, escapeMrkdwn, slackDate } from "./mrkdwn.ts";
import { scopeArg } from "./scope.ts";

/** One edge host as `/palette edge host` shows it (issue 39, item 3). Strings are raw: escaped here. */
export interface EdgeHostCardData {
  uid: string;
  name: string;
  projectUid?: string;
  state?: string;
  health?: string;
  healthMessage?: string;
  agentVersion?: string;
  site?: string;
  cluster?: { uid: string; name: string };
  architecture?: string;
  cpuCores?: number;
  memoryMB?: number;
  gpus: Array<{ vendor?: string; model?: string; count?: number }>;
  shellState?: string;
  /** the bot's record (src/store/edge-hosts.ts): Palette has no last-seen time */
  unhealthySince?: number;
  lastSeenHealthy?: number;
  consoleUrl: string;
}

export function paletteEdgeHostUrl(consoleUrl: string, uid: string, projectUid?: string): string {
  const base = consoleUrl.endsWith("/") ? consoleUrl : `${consoleUrl}/`;
  const id = encodeURIComponent(uid);
  return projectUid
    ? `${base}projects/${encodeURIComponent(projectUid)}/clusters/edge/${id}/overview`
    : `${base}admin/clusters/edge/${id}/overview`;
}

const shown = (value: string | undefined): string => (value ? code(value) : "_unknown_");

function hardware(data: EdgeHostCardData): string {
  const parts = [
    data.architecture ? escapeMrkdwn(data.architecture) : undefined,
    data.cpuCores !== undefined ? `${data.cpuCores} CPU` : undefined,
    data.memoryMB !== undefined ? `${Math.round(data.memoryMB / 1024)} GiB` : undefined,
    ...data.gpus.map(
      (gpu) =>
        `${gpu.count ?? 1}× ${escapeMrkdwn([gpu.vendor, gpu.model].filter(Boolean).join(" ") || "GPU")}`,
    ),
  ].filter((part): part is string => part !== undefined);
  return parts.length > 0 ? parts.join(" · ") : "_unknown_";
}

/** The plain-text line beside the card (notifications and clients without blocks). */
export function edgeHostCardText(data: EdgeHostCardData): string {
  const dark =
    data.unhealthySince !== undefined
      ? `, dark since ${new Date(data.unhealthySince).toISOString().slice(0, 16).replace("T", " ")} UTC`
      : "";
  return `Edge host ${data.name}: ${data.state ?? "unknown"}, ${data.health ?? "no health reported"}${dark}`;
}

export function edgeHostCardBlocks(data: EdgeHostCardData): KnownBlock[] {
  const unhealthy = data.health === "unhealthy";
  const blocks: KnownBlock[] = [
    header(`${unhealthy ? "🔴" : data.health === "healthy" ? "🟢" : "⚪"} ${data.name}`),
  ];
  if (data.unhealthySince !== undefined) {
    blocks.push(
      section(
        `:warning: *Dark since* ${slackDate(data.unhealthySince, "dateTime")} (the bot's first read of it unhealthy)`,
      ),
    );
  }
  if (data.healthMessage) blocks.push(section(`> ${escapeMrkdwn(data.healthMessage)}`));
  blocks.push(
    fields([
      `*State*\n${shown(data.state)}`,
      `*Health*\n${shown(data.health)}`,
      `*Last seen healthy*\n${data.lastSeenHealthy !== undefined ? slackDate(data.lastSeenHealthy, "dateTime") : "_not by the bot_"}`,
      `*Agent version*\n${shown(data.agentVersion)}`,
      `*Site*\n${shown(data.site)}`,
      `*Cluster*\n${data.cluster ? code(data.cluster.name) : "_none_"}`,
      `*Hardware*\n${hardware(data)}`,
      `*Remote shell*\n${data.shellState ? code(data.shellState) : "_none_"}`,
    ]),
  );
  blocks.push(
    context(
      `UID ${code(data.uid)}${data.projectUid ? ` · project ${code(data.projectUid)}` : " · tenant"}`,
    ),
  );
  const where = scopeArg(data.projectUid);
  blocks.push(
    ...buttonRows([
      urlButton(
        "Open in Palette",
        paletteEdgeHostUrl(data.consoleUrl, data.uid, data.projectUid),
        "open",
      ),
      // the host's story and its likely cause, answered privately (/palette why)
      commandButton("Why?", `why ${quoteArg(data.uid)}${where}`, "why"),
      data.cluster
        ? commandButton("Cluster", `cluster ${quoteArg(data.cluster.uid)}${where}`, "cluster")
        : undefined,
    ]),
  );
  return fitMessage(blocks);
}
