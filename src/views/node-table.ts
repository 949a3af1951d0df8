import type { KnownBlock } from "@slack/types";
import { context, fitMessage, header, section } from "./blocks.ts";
import { healthEmoji, isHealthy, stateEmoji } from "./emoji.ts";
import { clampList, packLines } from "./limits.ts";
import { bold, code, escapeMrkdwn } from "./mrkdwn.ts";
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
}

const MAX_POOLS = 12;
const MAX_MACHINES_PER_POOL = 60;

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
  const blocks: KnownBlock[] = [
    header(`Nodes of ${data.clusterName || data.clusterUid}`),
    context(
      `${data.pools.length} machine pool${data.pools.length === 1 ? "" : "s"}, ${machines} machine${machines === 1 ? "" : "s"} · ${scopeText(data.scope)} · UID ${code(data.clusterUid)}`,
    ),
  ];
  if (data.pools.length === 0) {
    blocks.push(section("This cluster has no machine pools."));
    return blocks;
  }
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
    blocks.push(...packLines([title, ...lines], undefined, 3).map(section));
  }
  if (pools.hidden > 0) blocks.push(context(`_…and ${pools.hidden} more pools_`));
  return fitMessage(blocks);
}
