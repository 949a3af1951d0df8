import { errorReply } from "../commands/reply.ts";
import { replayWith, resolveCluster } from "../commands/resolve.ts";
import type { CommandContext, MessageReply } from "../commands/types.ts";
import type { ChangeCluster, ChangePlan } from "../model/change.ts";
import type { Scope } from "../palette/api.ts";
import { PaletteError } from "../palette/errors.ts";
import { autoscaleRange, canScale } from "../palette/machine-pool-body.ts";
import { code, escapeMrkdwn } from "../views/mrkdwn.ts";
import type { ChangeAsk } from "./types.ts";

export type PlanOutcome =
  | { kind: "plan"; plan: ChangePlan }
  | { kind: "reply"; reply: MessageReply };

/**
 * Reads what Palette says now about the cluster (and the pool) a change is about: the plan the
 * confirmation shows, and what a later confirmation is compared with. Nothing is written.
 */
export async function planChange(ask: ChangeAsk, ctx: CommandContext): Promise<PlanOutcome> {
  const scopes: Scope[] = ask.project
    ? [{ projectUid: ask.project }]
    : ctx.projects.length > 0
      ? ctx.projects.map((projectUid) => ({ projectUid }))
      : [{}];
  const replayExtra = ask.verb === "scale" ? [ask.pool, String(ask.size)] : [];
  const found = await resolveCluster(ask.cluster, scopes, ctx, replayWith(ask.verb, replayExtra));
  if (found.kind === "reply") return found;
  const { scope } = found;
  const cluster = found.cluster.cluster ?? (await ctx.palette.getCluster(found.cluster.uid, scope));
  const state = await ctx.palette.getClusterState(found.cluster.uid, scope).catch((error) => {
    if (error instanceof PaletteError && error.status === 404) return undefined;
    throw error;
  });
  const ref = cluster.spec?.cloudConfigRef;
  const base: ChangeCluster = {
    uid: found.cluster.uid,
    name: found.cluster.name,
    projectUid: found.cluster.projectUid ?? scope.projectUid ?? "",
    cloudType: ref?.kind ?? cluster.spec?.cloudType ?? "",
    state: state ?? "Unknown",
  };
  const shown = code(base.name);
  if (base.state === "Deleting" || base.state === "Deleted") {
    return refuse(`${shown} is ${base.state}; there is nothing to change.`);
  }
  if (ask.verb === "delete") return { kind: "plan", plan: { verb: "delete", cluster: base } };

  if (!ref?.uid || !ref.kind) {
    return refuse(
      `${shown} has no machine pools of its own to scale (a virtual cluster runs on its host's).`,
    );
  }
  if (!canScale(ref.kind)) {
    return refuse(
      `I can't scale ${escapeMrkdwn(ref.kind)} pools: ${ref.kind === "edge-native" ? "an edge pool grows by adding edge hosts" : "Palette has no pool update for this cloud type"}. Use the Palette console.`,
    );
  }
  if (base.state !== "Running") {
    return refuse(
      `${shown} is ${escapeMrkdwn(base.state)}; Palette resizes pools of Running clusters only.`,
    );
  }
  const pool = await ctx.palette.getMachinePool(ref.kind, ref.uid, ask.pool, scope);
  if (!pool) {
    const config = await ctx.palette.getCloudConfig(ref.kind, ref.uid, scope);
    const names = (config.spec?.machinePoolConfig ?? []).map((entry) => code(entry.name ?? ""));
    return refuse(
      `${shown} has no pool ${code(ask.pool)}.`,
      names.length > 0 ? `Its pools: ${names.join(", ")}` : undefined,
    );
  }
  if (pool.isControlPlane === true) {
    return refuse(
      `${code(ask.pool)} is the control plane; its size (1, 3 or 5) is changed in the Palette console.`,
    );
  }
  const from = typeof pool.size === "number" ? pool.size : 0;
  const autoscale = autoscaleRange({
    minSize: typeof pool.minSize === "number" ? pool.minSize : undefined,
    maxSize: typeof pool.maxSize === "number" ? pool.maxSize : undefined,
  });
  if (autoscale && (ask.size < autoscale.min || ask.size > autoscale.max)) {
    return refuse(
      `${code(ask.pool)} autoscales between ${autoscale.min} and ${autoscale.max} nodes; ${ask.size} is outside.`,
    );
  }
  if (from === ask.size) return refuse(`${code(ask.pool)} already has ${from} nodes.`);
  return {
    kind: "plan",
    plan: {
      verb: "scale",
      cluster: base,
      configUid: ref.uid,
      pool: ask.pool,
      from,
      to: ask.size,
      ...(autoscale ? { autoscale } : {}),
    },
  };
}

/** The ask a plan came from, to read Palette again at confirmation. */
export function askOf(plan: ChangePlan): ChangeAsk {
  const project = plan.cluster.projectUid || undefined;
  return plan.verb === "scale"
    ? { verb: "scale", cluster: plan.cluster.uid, pool: plan.pool, size: plan.to, project }
    : { verb: "delete", cluster: plan.cluster.uid, project };
}

function refuse(mrkdwn: string, hint?: string): PlanOutcome {
  return { kind: "reply", reply: errorReply(mrkdwn, mrkdwn.replaceAll("`", ""), hint) };
}
