import { newerVersion } from "../model/change.ts";
import { quoteArg } from "../model/command-text.ts";
import { canScale } from "../palette/machine-pool-body.ts";
import { errorReply, messageReply, readScopes } from "../verb-kit/reply.ts";
import { replayWith, resolveCluster } from "../verb-kit/resolve.ts";
import type { CommandContext, Reply } from "../verb-kit/types.ts";
import { code, escapeMrkdwn } from "../views/mrkdwn.ts";
import { scopeArg } from "../views/scope.ts";
import { guardChange } from "./guard.ts";

/**
 * `scale <cluster>` and `cordon <cluster>` without the rest (also what the cards' "Actions…"
 * menu runs): the pools or the machines to pick from, each a button with the whole command, so
 * nobody has to copy a machine's name. Reads only.
 */

const MAX_POOLS = 20;
const MAX_MACHINES = 20;

async function found(
  verb: "scale" | "cordon" | "uncordon" | "upgrade",
  ref: string,
  project: string | undefined,
  ctx: CommandContext,
) {
  const scopes = readScopes({ project }, ctx);
  const resolution = await resolveCluster(ref, scopes, ctx, replayWith(verb));
  if (resolution.kind === "reply") return resolution;
  // a cluster named by UID shows its project only now: a freeze of it refuses before any choice
  const guard = await guardChange(ctx, ctx.requester.userId, verb, {
    clusterUid: resolution.cluster.uid,
    projectUid: resolution.cluster.projectUid,
    name: resolution.cluster.name,
  });
  if (!guard.allowed)
    return { kind: "reply" as const, reply: errorReply(guard.mrkdwn, guard.text) };
  const cluster =
    resolution.cluster.cluster ??
    (await ctx.palette.getCluster(resolution.cluster.uid, resolution.scope));
  return { kind: "found" as const, resolution, cluster };
}

export async function choosePool(
  ref: string,
  project: string | undefined,
  ctx: CommandContext,
): Promise<Reply> {
  const lookup = await found("scale", ref, project, ctx);
  if (lookup.kind === "reply") return lookup.reply;
  const { resolution, cluster } = lookup;
  const config = cluster.spec?.cloudConfigRef;
  const name = resolution.cluster.name;
  if (!config?.kind || !config.uid || !canScale(config.kind)) {
    return errorReply(
      `I can't scale the pools of ${code(name)} (${escapeMrkdwn(config?.kind ?? "no cloud config")}); use the Palette console.`,
      `I can't scale the pools of ${name}.`,
    );
  }
  const read = await ctx.palette.getCloudConfig(config.kind, config.uid, resolution.scope);
  const target = `${quoteArg(resolution.cluster.uid)}${scopeArg(resolution.cluster.projectUid)}`;
  const choices: Array<{ label: string; command: string }> = [];
  const lines: string[] = [];
  for (const pool of (read.spec?.machinePoolConfig ?? []).slice(0, MAX_POOLS)) {
    if (!pool.name || pool.isControlPlane) continue;
    const size = pool.size ?? 0;
    lines.push(`${code(pool.name)}: ${size} nodes`);
    choices.push({
      label: `${pool.name} → ${size + 1}`,
      command: `scale ${target} ${quoteArg(pool.name)} ${size + 1}`,
    });
    if (size > 0) {
      choices.push({
        label: `${pool.name} → ${size - 1}`,
        command: `scale ${target} ${quoteArg(pool.name)} ${size - 1}`,
      });
    }
  }
  if (choices.length === 0) {
    return errorReply(`${code(name)} has no worker pool to scale.`, `${name} has no worker pool.`);
  }
  return messageReply(
    {
      screen: "changeChoice",
      data: {
        prompt: `Which pool of ${code(name)}, and to what size?\n${lines.join("\n")}`,
        choices,
        hint: `Any other size: \`/palette scale ${escapeMrkdwn(name)} &lt;pool&gt; &lt;size&gt;\`. Each button opens the confirmation first.`,
      },
    },
    `Pick a pool of ${name} to scale`,
  );
}

export async function chooseMachine(
  verb: "cordon" | "uncordon",
  ref: string,
  project: string | undefined,
  ctx: CommandContext,
): Promise<Reply> {
  const lookup = await found(verb, ref, project, ctx);
  if (lookup.kind === "reply") return lookup.reply;
  const { resolution, cluster } = lookup;
  const config = cluster.spec?.cloudConfigRef;
  const name = resolution.cluster.name;
  if (!config?.kind || !config.uid) {
    return errorReply(
      `${code(name)} has no machines of its own (a virtual cluster runs on its host's).`,
      `${name} has no machines of its own.`,
    );
  }
  const read = await ctx.palette.getCloudConfig(config.kind, config.uid, resolution.scope);
  const target = `${quoteArg(resolution.cluster.uid)}${scopeArg(resolution.cluster.projectUid)}`;
  const choices: Array<{ label: string; command: string }> = [];
  for (const pool of (read.spec?.machinePoolConfig ?? []).slice(0, MAX_POOLS)) {
    if (!pool.name) continue;
    const machines = await ctx.palette.listMachines(
      config.kind,
      config.uid,
      pool.name,
      resolution.scope,
    );
    for (const machine of machines) {
      const cordoned = machine.status?.maintenanceStatus?.action === "cordon";
      if ((verb === "cordon") === cordoned) continue;
      const machineName = machine.metadata?.name ?? machine.metadata?.uid;
      if (!machineName || choices.length >= MAX_MACHINES) continue;
      choices.push({ label: machineName, command: `${verb} ${target} ${quoteArg(machineName)}` });
    }
  }
  if (choices.length === 0) {
    return errorReply(
      verb === "cordon"
        ? `${code(name)} has no machine left to cordon.`
        : `${code(name)} has no cordoned machine.`,
      verb === "cordon" ? `${name} has no machine to cordon.` : `${name} has no cordoned machine.`,
    );
  }
  return messageReply(
    {
      screen: "changeChoice",
      data: {
        prompt: `Which node of ${code(name)} to ${verb}?`,
        choices,
        hint: "Each button opens the confirmation first.",
      },
    },
    `Pick a node of ${name} to ${verb}`,
  );
}

export async function chooseUpgrade(
  ref: string,
  project: string | undefined,
  ctx: CommandContext,
): Promise<Reply> {
  const lookup = await found("upgrade", ref, project, ctx);
  if (lookup.kind === "reply") return lookup.reply;
  const { resolution, cluster } = lookup;
  const name = resolution.cluster.name;
  const target = `${quoteArg(resolution.cluster.uid)}${scopeArg(resolution.cluster.projectUid)}`;
  const choices: Array<{ label: string; command: string }> = [];
  const lines: string[] = [];
  for (const template of (cluster.spec?.clusterProfileTemplates ?? []).slice(0, MAX_POOLS)) {
    if (!template.uid) continue;
    const profile = await ctx.palette.getClusterProfile(template.uid, resolution.scope);
    const running = profile.version ?? "";
    const newer = profile.versions.filter((entry) => newerVersion(entry.version, running));
    lines.push(
      `${code(profile.name || template.uid)} ${escapeMrkdwn(running)}${newer.length === 0 ? " (newest)" : ""}`,
    );
    for (const entry of newer.slice(0, 5)) {
      choices.push({
        label: `${profile.name} → ${entry.version}`,
        command: `upgrade ${target} ${quoteArg(template.uid)} ${quoteArg(entry.version)}`,
      });
    }
  }
  if (choices.length === 0) {
    return messageReply(
      {
        screen: "notice",
        data: {
          mrkdwn: `${code(name)} runs the newest version of each of its profiles.${lines.length > 0 ? `\n${lines.join("\n")}` : ""}`,
        },
      },
      `${name} is up to date`,
    );
  }
  return messageReply(
    {
      screen: "changeChoice",
      data: {
        prompt: `Upgrade ${code(name)} to which version?\n${lines.join("\n")}`,
        choices,
        hint: "Each button opens the confirmation first: the packs that change, and the cluster's name to type.",
      },
    },
    `Pick a profile version for ${name}`,
  );
}
