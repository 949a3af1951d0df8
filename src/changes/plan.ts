import { type ChangeCluster, type ChangePlan, newerVersion, packChanges } from "../model/change.ts";
import type { Scope } from "../palette/api.ts";
import { clusterProjectUid } from "../palette/cluster-project.ts";
import { PaletteError } from "../palette/errors.ts";
import { autoscaleRange, canScale } from "../palette/machine-pool-body.ts";
import type { Cluster } from "../palette/schemas.ts";
import { errorReply, readScopes } from "../verb-kit/reply.ts";
import { replayWith, resolveCluster } from "../verb-kit/resolve.ts";
import type { CommandContext, MessageReply } from "../verb-kit/types.ts";
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
  const scopes = readScopes({ project: ask.project }, ctx);
  const replayExtra =
    ask.verb === "scale"
      ? [ask.pool, String(ask.size)]
      : ask.verb === "cordon" || ask.verb === "uncordon"
        ? [ask.machine]
        : ask.verb === "upgrade"
          ? [ask.profile, ask.version]
          : [];
  const typed =
    ask.verb === "repave"
      ? "repave approve"
      : ask.verb === "renew"
        ? "renew certificates"
        : ask.verb;
  const found = await resolveCluster(ask.cluster, scopes, ctx, replayWith(typed, replayExtra));
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
    // as Palette reports it: a freeze of the project and PALETTE_PROJECTS apply by it
    projectUid: found.cluster.projectUid ?? clusterProjectUid(cluster) ?? scope.projectUid ?? "",
    cloudType: ref?.kind ?? cluster.spec?.cloudType ?? "",
    state: state ?? "Unknown",
  };
  const shown = code(base.name);
  if (base.state === "Deleting" || base.state === "Deleted") {
    return refuse(`${shown} is ${base.state}; there is nothing to change.`);
  }
  switch (ask.verb) {
    case "delete":
      return { kind: "plan", plan: { verb: "delete", cluster: base } };
    case "scale":
      return planScale(ask, base, ref, scope, ctx);
    case "cordon":
    case "uncordon":
      return planMaintenance(ask, base, ref, scope, ctx);
    case "renew": {
      // the expiry dates the confirmation shows, and what the follower waits to see move
      const certificates = (await ctx.palette.getCertificates(base.uid, scope)).filter(
        (cert) => !cert.authority,
      );
      const earliest = certificates[0]?.expiresAt;
      if (earliest === undefined) {
        return refuse(`Palette lists no Kubernetes certificates for ${shown}; nothing to renew.`);
      }
      const count = certificates.filter((cert) => cert.expiresAt === earliest).length;
      return {
        kind: "plan",
        plan: { verb: "renew", cluster: base, expiresAt: earliest, count, readAt: ctx.clock.now() },
      };
    }
    case "repave": {
      const repave = await ctx.palette.getRepaveStatus(base.uid, scope);
      if (repave.state !== "Pending") {
        return refuse(
          `${shown} has no repave waiting for approval${repave.state ? ` (its last one is ${escapeMrkdwn(repave.state)})` : ""}.`,
        );
      }
      return { kind: "plan", plan: { verb: "repave", cluster: base, reasons: repave.reasons } };
    }
    case "logs":
      return { kind: "plan", plan: { verb: "logs", cluster: base, lines: LOG_LINES } };
    case "upgrade":
      return planUpgrade(ask, base, cluster, scope, ctx);
    case "backup": {
      const backup = await ctx.palette.getBackup(base.uid, scope);
      if (!backup.location) {
        return refuse(
          `${shown} has no backup location configured, so there is nowhere to back it up to.`,
          "Set a backup policy with a location for it in the Palette console (cluster → Settings → Backups), then ask again.",
        );
      }
      const stamp = new Date(ctx.clock.now()).toISOString().slice(0, 16).replace(/[-:T]/g, "");
      return {
        kind: "plan",
        plan: {
          verb: "backup",
          cluster: base,
          location: backup.location,
          backupName: `chatops-${base.name}-${stamp}`.toLowerCase().slice(0, 63),
          ttlHours: backup.ttlHours ?? DEFAULT_BACKUP_TTL_HOURS,
          includeAllDisks: backup.includeAllDisks ?? false,
          includeClusterResources: backup.includeClusterResources ?? true,
          namespaces: backup.namespaces,
        },
      };
    }
    case "pause":
    case "resume": {
      if (base.cloudType !== "virtual") {
        return refuse(
          `${shown} is not a virtual cluster; Palette pauses and resumes virtual clusters only.`,
        );
      }
      const paused = cluster.status?.virtual?.state === "Paused";
      if (ask.verb === "pause" && paused) return refuse(`${shown} is already paused.`);
      if (ask.verb === "resume" && !paused) return refuse(`${shown} is not paused.`);
      return { kind: "plan", plan: { verb: ask.verb, cluster: base } };
    }
  }
}

type CloudRef = { kind?: string | null; uid?: string | null } | null | undefined;

async function planScale(
  ask: Extract<ChangeAsk, { verb: "scale" }>,
  base: ChangeCluster,
  ref: CloudRef,
  scope: Scope,
  ctx: CommandContext,
): Promise<PlanOutcome> {
  const shown = code(base.name);
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

async function planUpgrade(
  ask: Extract<ChangeAsk, { verb: "upgrade" }>,
  base: ChangeCluster,
  cluster: Cluster,
  scope: Scope,
  ctx: CommandContext,
): Promise<PlanOutcome> {
  const shown = code(base.name);
  if (base.state !== "Running") {
    return refuse(`${shown} is ${escapeMrkdwn(base.state)}; upgrade it when it is Running.`);
  }
  const attached = (cluster.spec?.clusterProfileTemplates ?? []).flatMap((template) =>
    template.uid ? [{ uid: template.uid, name: template.name ?? "" }] : [],
  );
  const wanted = ask.profile.toLowerCase();
  const template = attached.find(
    (entry) => entry.name.toLowerCase() === wanted || entry.uid === ask.profile,
  );
  if (!template) {
    return refuse(
      `${shown} has no profile ${code(ask.profile)} attached.`,
      attached.length > 0
        ? `Its profiles: ${attached.map((entry) => code(entry.name || entry.uid)).join(", ")}`
        : undefined,
    );
  }
  const current = await ctx.palette.getClusterProfile(template.uid, scope);
  const fromVersion = current.version ?? "";
  const target = current.versions.find((entry) => entry.version === ask.version);
  if (!target) {
    const newer = current.versions.filter((entry) => newerVersion(entry.version, fromVersion));
    return refuse(
      `${code(current.name || template.name)} has no version ${code(ask.version)}.`,
      newer.length > 0
        ? `Newer than ${escapeMrkdwn(fromVersion)}: ${newer.map((entry) => code(entry.version)).join(", ")}`
        : `${escapeMrkdwn(fromVersion)} is its newest version.`,
    );
  }
  if (!newerVersion(target.version, fromVersion)) {
    return refuse(
      `${code(ask.version)} is not newer than ${code(fromVersion)}, the version ${shown} runs; the bot only upgrades.`,
    );
  }
  const next = await ctx.palette.getClusterProfile(target.uid, scope);
  return {
    kind: "plan",
    plan: {
      verb: "upgrade",
      cluster: base,
      profile: {
        name: current.name || template.name,
        fromUid: template.uid,
        fromVersion,
        toUid: target.uid,
        toVersion: target.version,
      },
      packs: packChanges(current.packs, next.packs),
    },
  };
}

/** the last lines of each log a fetch collects (Palette's default) */
const LOG_LINES = 1000;

/** an on-demand backup is kept this long when the cluster's policy does not say (30 days) */
const DEFAULT_BACKUP_TTL_HOURS = 720;

/** Bounds the reads: clusters have a handful of pools. */
const MAX_POOLS = 20;

async function planMaintenance(
  ask: Extract<ChangeAsk, { verb: "cordon" | "uncordon" }>,
  base: ChangeCluster,
  ref: CloudRef,
  scope: Scope,
  ctx: CommandContext,
): Promise<PlanOutcome> {
  const shown = code(base.name);
  if (!ref?.uid || !ref.kind) {
    return refuse(`${shown} has no machines of its own (a virtual cluster runs on its host's).`);
  }
  const config = await ctx.palette.getCloudConfig(ref.kind, ref.uid, scope);
  const pools = (config.spec?.machinePoolConfig ?? [])
    .map((pool) => pool.name ?? "")
    .filter((name) => name !== "")
    .slice(0, MAX_POOLS);
  const seen: string[] = [];
  for (const pool of pools) {
    const machines = await ctx.palette.listMachines(ref.kind, ref.uid, pool, scope);
    for (const machine of machines) {
      const name = machine.metadata?.name ?? "";
      const uid = machine.metadata?.uid ?? "";
      seen.push(name || uid);
      if (name !== ask.machine && uid !== ask.machine) continue;
      const maintenance = machine.status?.maintenanceStatus;
      const cordoned = maintenance?.action === "cordon";
      if (ask.verb === "cordon" && cordoned) {
        return refuse(`${code(name || uid)} is already cordoned.`);
      }
      if (ask.verb === "uncordon" && !cordoned) {
        return refuse(`${code(name || uid)} is not cordoned.`);
      }
      return {
        kind: "plan",
        plan: {
          verb: ask.verb,
          cluster: base,
          configUid: ref.uid,
          pool,
          machine: { uid, name: name || uid },
        },
      };
    }
  }
  return refuse(
    `${shown} has no machine ${code(ask.machine)}.`,
    seen.length > 0
      ? `Its machines: ${seen.slice(0, 10).map(code).join(", ")}${seen.length > 10 ? " …" : ""} (see \`/palette nodes ${escapeMrkdwn(base.name)}\`)`
      : undefined,
  );
}

/** The ask a plan came from, to read Palette again at confirmation. */
export function askOf(plan: ChangePlan): ChangeAsk {
  const project = plan.cluster.projectUid || undefined;
  const cluster = plan.cluster.uid;
  switch (plan.verb) {
    case "scale":
      return { verb: "scale", cluster, pool: plan.pool, size: plan.to, project };
    case "cordon":
    case "uncordon":
      return { verb: plan.verb, cluster, machine: plan.machine.uid, project };
    case "upgrade":
      return {
        verb: "upgrade",
        cluster,
        profile: plan.profile.fromUid,
        version: plan.profile.toVersion,
        project,
      };
    default:
      return { verb: plan.verb, cluster, project };
  }
}

function refuse(mrkdwn: string, hint?: string): PlanOutcome {
  return { kind: "reply", reply: errorReply(mrkdwn, mrkdwn.replaceAll("`", ""), hint) };
}
