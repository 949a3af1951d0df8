import { quoteArg } from "../model/command-text.ts";
import type { Machine } from "../palette/schemas.ts";
import { flagValue } from "../verb-kit/parse.ts";
import { messageReply, readScopes, usageReply } from "../verb-kit/reply.ts";
import { replayWith, resolveCluster } from "../verb-kit/resolve.ts";
import type { VerbSpec } from "../verb-kit/types.ts";
import { code } from "../views/mrkdwn.ts";
import type { NodeMachine, NodePool } from "../views/node-table.ts";
import { scopeArg } from "../views/scope.ts";

/** Bounds the calls one command makes; clusters have a handful of pools. */
const MAX_POOLS = 20;

export function toNodeMachine(machine: Machine): NodeMachine {
  const addresses = machine.status?.addresses ?? [];
  const address =
    addresses.find((entry) => entry.type === "InternalIP")?.address ?? addresses[0]?.address;
  return {
    name: machine.metadata?.name ?? machine.metadata?.uid ?? "unnamed",
    state: machine.status?.instanceState ?? undefined,
    health: machine.status?.health?.state ?? undefined,
    address: address ?? undefined,
  };
}

/** `--page=<n>`: a whole number from 1; anything else is the first page */
export function pageOf(flag: string | undefined): number {
  const page = Number(flag ?? "1");
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

export const nodesVerb: VerbSpec = {
  name: "nodes",
  usage: "nodes <cluster> [project:<uid>] [--page=<n>]",
  summary: "machine pools and machines with their state and health",
  examples: ["/palette nodes web-prod"],
  run: async (command, ctx) => {
    if (command.args.length !== 1) {
      return usageReply(
        nodesVerb,
        command.args.length === 0
          ? "Which cluster? Give its name or UID."
          : "One cluster at a time.",
      );
    }
    const found = await resolveCluster(
      command.args[0]!,
      readScopes(command, ctx),
      ctx,
      replayWith("nodes"),
    );
    if (found.kind === "reply") return found.reply;
    const { cluster: resolved, scope } = found;
    const cluster = resolved.cluster ?? (await ctx.palette.getCluster(resolved.uid, scope));
    const ref = cluster.spec?.cloudConfigRef;
    if (!ref?.kind || !ref.uid) {
      return messageReply(
        {
          screen: "notice",
          data: {
            mrkdwn: `Cluster ${code(resolved.name)} has no cloud config, so no machine pools to show (virtual clusters run on their host's nodes).`,
          },
        },
        `Cluster ${resolved.name} has no machine pools`,
      );
    }
    const config = await ctx.palette.getCloudConfig(ref.kind, ref.uid, scope);
    const poolConfigs = (config.spec?.machinePoolConfig ?? []).slice(0, MAX_POOLS);
    const pools: NodePool[] = await Promise.all(
      poolConfigs.map(async (pool) => {
        const name = pool.name ?? "";
        const machines = name
          ? await ctx.palette.listMachines(ref.kind!, ref.uid!, name, scope)
          : [];
        return {
          name,
          isControlPlane: pool.isControlPlane === true,
          size: pool.size ?? undefined,
          machines: machines.map(toNodeMachine),
        };
      }),
    );
    const count = pools.reduce((sum, pool) => sum + pool.machines.length, 0);
    return messageReply(
      {
        screen: "nodeTable",
        data: {
          clusterName: cluster.metadata?.name ?? resolved.name,
          clusterUid: resolved.uid,
          scope: { projectUid: scope.projectUid, projectName: resolved.projectName },
          pools,
          unreadPools: (config.spec?.machinePoolConfig ?? []).length - poolConfigs.length,
          page: pageOf(flagValue(command, "page")),
          command: `nodes ${quoteArg(resolved.uid)}${scopeArg(resolved.projectUid ?? scope.projectUid)}`,
        },
      },
      `Cluster ${resolved.name}: ${pools.length} pools, ${count} machines`,
    );
  },
};
