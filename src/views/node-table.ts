import type { KnownBlock } from "@slack/types";
import { context, header, section } from "./blocks.ts";
import { healthEmoji, isHealthy, stateEmoji } from "./emoji.ts";
import { clampList, packLines } from "./limits.ts";
import { bold, code, escapeMrkdwn } from "./mrkdwn.ts";
import { pageBlocks } from "./pages.ts";
import { type ScopeLabel, scopeText } from "./scope.ts";

export interface NodeMachine {
  name: string;
  state?: string;
  health?: string;
  address?: string;
}

export interface NodePool {
  name: string;
  isControlPlane: boolean;
  /** desired size from the cloud config */
  size?: number;
  machines: readonly NodeMachine[];
}

export interface NodeTableData {
  clusterName: string;
  clusterUid: string;
  scope: ScopeLabel;
  pools: readonly NodePool[];
  /** pools the command did not read (it reads the first 20) */
  unreadPools?: number;
  /** the page to show, 1 the first: a large cluster's table is longer than one Slack message */
  page?: number;
  /** the command that shows this table; the page buttons run it with `--page=<n>` */
  command?: string;
}

/** the pools the command reads (src/commands/nodes.ts) */
const MAX_POOLS = 20;
/** a bound on one answer's pages, not a cut Slack needs: the pages carry the machines */
const MAX_MACHINES_PER_POOL = 1000;

export function machineLine(machine: NodeMachine): string {
  const parts = [
    `${stateEmoji(machine.state)} ${code(machine.name)}`,
    escapeMrkdwn(machine.state ?? "unknown state"),
    `${healthEmoji(machine.health)} ${escapeMrkdwn(machine.health ?? "health unknown")}`,
  ];
  if (machine.address) parts.push(escapeMrkdwn(machine.address));
  return parts.join(" · ");
}

export function nodeTableBlocks(data: NodeTableData): KnownBlock[] {
  const machines = data.pools.reduce((sum, pool) => sum + pool.machines.length, 0);
  const head: KnownBlock[] = [
    header(`Nodes of ${data.clusterName || data.clusterUid}`),
    context(
      `${data.pools.length} machine pool${data.pools.length === 1 ? "" : "s"}, ${machines} machine${machines === 1 ? "" : "s"} · ${scopeText(data.scope)} · UID ${code(data.clusterUid)}`,
    ),
  ];
  if (data.pools.length === 0) {
    return [...head, section("This cluster has no machine pools.")];
  }
  const blocks: KnownBlock[] = [];
  const pools = clampList(data.pools, MAX_POOLS);
  for (const pool of pools.shown) {
    const healthy = pool.machines.filter((machine) => isHealthy(machine.health)).length;
    const role = pool.isControlPlane ? " (control plane)" : "";
    const size = pool.size !== undefined && pool.size !== null ? `, size ${pool.size}` : "";
    const title = `${bold(pool.name) || "_unnamed pool_"}${role} · ${healthy}/${pool.machines.length} healthy${size}`;
    const lines =
      pool.machines.length === 0
        ? ["_no machines yet_"]
        : pool.machines.slice(0, MAX_MACHINES_PER_POOL).map(machineLine);
    const hidden = pool.machines.length - Math.min(pool.machines.length, MAX_MACHINES_PER_POOL);
    if (hidden > 0) lines.push(`_…and ${hidden} more_`);
    // a pool's section of at most 3,000 characters at a time; the pages split between sections
    blocks.push(...packLines([title, ...lines], undefined, 100).map(section));
  }
  const morePools = pools.hidden + (data.unreadPools ?? 0);
  if (morePools > 0) blocks.push(context(`_…and ${morePools} more pools_`));
  const { command } = data;
  return pageBlocks(
    head,
    blocks,
    data.page ?? 1,
    command ? (page) => `${command} --page=${page}` : undefined,
  ).blocks;
}
