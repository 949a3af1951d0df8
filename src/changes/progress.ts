import {
  backupProgress,
  type ChangePlan,
  type ChangeProgress,
  deleteProgress,
  logsProgress,
  maintenanceProgress,
  pauseProgress,
  renewProgress,
  repaveProgress,
  scaleProgress,
  upgradeProgress,
} from "../model/change.ts";
import type { PaletteApi, Scope } from "../palette/api.ts";
import { PaletteError } from "../palette/errors.ts";

/** The project a change's Palette calls are scoped to (the tenant when it has none). */
export function planScope(plan: ChangePlan): Scope {
  return plan.cluster.projectUid ? { projectUid: plan.cluster.projectUid } : {};
}

type MachinePlan = Extract<ChangePlan, { verb: "cordon" | "uncordon" }>;

/** The machine a cordon or uncordon is about, as its pool lists it now (undefined: gone). */
async function plannedMachine(plan: MachinePlan, palette: PaletteApi, scope: Scope) {
  const machines = await palette.listMachines(
    plan.cluster.cloudType,
    plan.configUid,
    plan.pool,
    scope,
  );
  return machines.find((entry) => entry.metadata?.uid === plan.machine.uid);
}

/** The earliest expiry of the cluster's Kubernetes certificates (not their authorities'). */
async function earliestCertificate(
  uid: string,
  scope: { projectUid?: string },
  palette: PaletteApi,
): Promise<number | undefined> {
  const certificates = await palette.getCertificates(uid, scope);
  return (certificates.find((cert) => !cert.authority) ?? certificates[0])?.expiresAt;
}

/** How far a change Palette accepted has got, read from Palette (one or two reads). */
export async function readProgress(
  plan: ChangePlan,
  palette: PaletteApi,
  paletteRef?: string,
): Promise<ChangeProgress> {
  const scope = planScope(plan);
  switch (plan.verb) {
    case "delete": {
      const state = await palette.getClusterState(plan.cluster.uid, scope).catch((error) => {
        if (error instanceof PaletteError && error.status === 404) return undefined;
        throw error;
      });
      return deleteProgress(state);
    }
    case "scale": {
      const machines = await palette.listMachines(
        plan.cluster.cloudType,
        plan.configUid,
        plan.pool,
        scope,
      );
      let running = 0;
      let failed = 0;
      for (const machine of machines) {
        const state = machine.status?.instanceState;
        if (state === "Running") running++;
        if (state === "Failed") failed++;
      }
      return scaleProgress(plan, { running, failed, total: machines.length });
    }
    case "cordon":
    case "uncordon": {
      const machine = await plannedMachine(plan, palette, scope);
      if (!machine)
        return { kind: "failed", line: `\`${plan.machine.name}\` is gone from the pool` };
      return maintenanceProgress(plan, {
        action: machine.status?.maintenanceStatus?.action ?? undefined,
        state: machine.status?.maintenanceStatus?.state ?? undefined,
      });
    }
    case "repave":
      return repaveProgress((await palette.getRepaveStatus(plan.cluster.uid, scope)).state);
    case "renew":
      return renewProgress(plan, await earliestCertificate(plan.cluster.uid, scope, palette));
    case "upgrade": {
      const cluster = await palette.getCluster(plan.cluster.uid, scope);
      const attached = (cluster.spec?.clusterProfileTemplates ?? []).flatMap((template) =>
        template.uid ? [template.uid] : [],
      );
      return upgradeProgress(plan, attached);
    }
    case "logs":
      return logsProgress(
        paletteRef ? await palette.getLogRequest(plan.cluster.uid, paletteRef, scope) : {},
      );
    case "backup": {
      const backup = await palette.getBackup(plan.cluster.uid, scope, paletteRef);
      return backupProgress(plan, backup.requestState);
    }
    case "pause":
    case "resume": {
      const cluster = await palette.getCluster(plan.cluster.uid, scope);
      return pauseProgress(plan, cluster.status?.virtual?.state ?? undefined);
    }
  }
}

/**
 * Whether a write whose answer never came took effect, read from Palette: true when Palette
 * shows it, false when it shows the state before, undefined when Palette cannot say (a logs
 * or backup request whose uid was in the lost answer). Read only: nothing is sent again.
 */
export async function tookEffect(
  plan: ChangePlan,
  palette: PaletteApi,
  paletteRef?: string,
): Promise<boolean | undefined> {
  const scope = planScope(plan);
  switch (plan.verb) {
    case "scale": {
      // Palette stores the pool's new size when it takes the PUT, before any machine moves
      const pool = await palette.getMachinePool(
        plan.cluster.cloudType,
        plan.configUid,
        plan.pool,
        scope,
      );
      return pool?.size === plan.to;
    }
    case "delete": {
      const state = await palette.getClusterState(plan.cluster.uid, scope).catch((error) => {
        if (error instanceof PaletteError && error.status === 404) return "Deleted";
        throw error;
      });
      return state === undefined || state === "Deleting" || state === "Deleted";
    }
    case "cordon":
    case "uncordon": {
      const machine = await plannedMachine(plan, palette, scope);
      return machine?.status?.maintenanceStatus?.action === plan.verb;
    }
    case "repave": {
      const { state } = await palette.getRepaveStatus(plan.cluster.uid, scope);
      return state !== undefined && state !== "Pending";
    }
    case "renew": {
      // renewed: it happened; not yet: Palette may still be at it, so it cannot say
      const earliest = await earliestCertificate(plan.cluster.uid, scope, palette);
      return earliest !== undefined && earliest > plan.expiresAt ? true : undefined;
    }
    case "pause":
    case "resume": {
      const cluster = await palette.getCluster(plan.cluster.uid, scope);
      const state = cluster.status?.virtual?.state ?? "";
      return plan.verb === "pause" ? /paus/i.test(state) : /resum|running/i.test(state);
    }
    case "upgrade": {
      const cluster = await palette.getCluster(plan.cluster.uid, scope);
      return (cluster.spec?.clusterProfileTemplates ?? []).some(
        (template) => template.uid === plan.profile.toUid,
      );
    }
    case "logs":
    case "backup":
      // the request's uid came in the answer that was lost; only a ref recorded before tells
      return paletteRef ? true : undefined;
  }
}
