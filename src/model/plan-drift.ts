import type { ChangeCluster, ChangePlan } from "./change.ts";

/**
 * What the person confirmed (or the second person approves) against what Palette says now,
 * compared as a whole: the cluster, and every part of the plan that decides what is sent to
 * Palette (a repave's reasons, an upgrade's profile versions and packs, a backup's location and
 * settings, the machine, the pool's size and autoscale range). Pure.
 *
 * A difference is plain text; the views escape it where it is shown.
 */
export interface PlanDifference {
  /** what differs, e.g. "the size of pool worker-pool" */
  what: string;
  /** as planned (shown in the confirmation or the request card) */
  was: string;
  /** as Palette says now */
  now: string;
}

/** Empty when Palette still matches the plan. */
export function planDrift(planned: ChangePlan, current: ChangePlan): PlanDifference[] {
  if (planned.cluster.uid !== current.cluster.uid || planned.verb !== current.verb) {
    return [
      {
        what: `the cluster named ${planned.cluster.name}`,
        was: planned.cluster.uid,
        now: `a different cluster (${current.cluster.uid})`,
      },
    ];
  }
  const differences = clusterDrift(planned.cluster, current.cluster);
  const differ = (what: string, was: string, now: string) => {
    if (was !== now) differences.push({ what, was, now });
  };
  switch (planned.verb) {
    case "scale": {
      if (current.verb !== "scale") break;
      const pool = `pool ${planned.pool}`;
      differ(`the cloud config of ${pool}`, planned.configUid, current.configUid);
      differ(`the size of ${pool}`, nodes(planned.from), nodes(current.from));
      differ(`the autoscale range of ${pool}`, range(planned.autoscale), range(current.autoscale));
      break;
    }
    case "cordon":
    case "uncordon": {
      if (current.verb !== planned.verb) break;
      differ("the machine's cloud config", planned.configUid, current.configUid);
      differ("the machine's pool", planned.pool, current.pool);
      differ(
        "the machine",
        `${planned.machine.name} (${planned.machine.uid})`,
        `${current.machine.name} (${current.machine.uid})`,
      );
      break;
    }
    case "renew": {
      if (current.verb !== "renew") break;
      const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
      differ("the certificates' earliest expiry", day(planned.expiresAt), day(current.expiresAt));
      break;
    }
    case "repave": {
      if (current.verb !== "repave") break;
      differ("Palette's reasons for the repave", list(planned.reasons), list(current.reasons));
      break;
    }
    case "upgrade": {
      if (current.verb !== "upgrade") break;
      const before = planned.profile;
      const after = current.profile;
      differ("the profile", before.name, after.name);
      differ(
        `the attached version of ${before.name}`,
        `${before.fromVersion} (${before.fromUid})`,
        `${after.fromVersion} (${after.fromUid})`,
      );
      differ(
        `the target version of ${before.name}`,
        `${before.toVersion} (${before.toUid})`,
        `${after.toVersion} (${after.toUid})`,
      );
      differ("the packs that change", packList(planned.packs), packList(current.packs));
      break;
    }
    case "backup": {
      if (current.verb !== "backup") break;
      // backupName carries the time it was planned; it is a label, not something Palette decides
      differ(
        "the backup location",
        `${planned.location.name} (${planned.location.uid})`,
        `${current.location.name} (${current.location.uid})`,
      );
      differ("how long the backup is kept", `${planned.ttlHours} h`, `${current.ttlHours} h`);
      differ("the namespaces backed up", namespaces(planned), namespaces(current));
      differ(
        "whether cluster resources are included",
        yesNo(planned.includeClusterResources),
        yesNo(current.includeClusterResources),
      );
      differ(
        "whether all disks are included",
        yesNo(planned.includeAllDisks),
        yesNo(current.includeAllDisks),
      );
      break;
    }
    case "logs": {
      if (current.verb !== "logs") break;
      differ("the lines collected of each log", String(planned.lines), String(current.lines));
      break;
    }
    case "delete":
    case "pause":
    case "resume":
      // the cluster itself (its state above) is the whole plan
      break;
  }
  return differences;
}

function clusterDrift(planned: ChangeCluster, current: ChangeCluster): PlanDifference[] {
  const differences: PlanDifference[] = [];
  const differ = (what: string, was: string, now: string) => {
    if (was !== now) differences.push({ what, was, now });
  };
  differ("the cluster's state", planned.state, current.state);
  differ("the cluster's name", planned.name, current.name);
  // an empty project is "not known when planned": only a project that moved is a difference
  if (planned.projectUid && current.projectUid) {
    differ("the cluster's project", planned.projectUid, current.projectUid);
  }
  differ("the cluster's cloud type", planned.cloudType, current.cloudType);
  return differences;
}

const nodes = (count: number) => `${count} node${count === 1 ? "" : "s"}`;
const yesNo = (value: boolean) => (value ? "yes" : "no");
const range = (autoscale: { min: number; max: number } | undefined) =>
  autoscale ? `${autoscale.min} to ${autoscale.max} nodes` : "none (a fixed size)";
/** order is Palette's and means nothing here: compared as a set */
const list = (items: readonly string[]) =>
  items.length === 0 ? "none" : [...items].sort().join("; ");
const namespaces = (plan: { namespaces: readonly string[] }) =>
  plan.namespaces.length === 0 ? "every namespace" : [...plan.namespaces].sort().join(", ");
const packList = (packs: ReadonlyArray<{ name: string; from?: string; to?: string }>) =>
  packs.length === 0
    ? "none"
    : [...packs]
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((pack) => `${pack.name} ${pack.from ?? "(new)"} → ${pack.to ?? "(removed)"}`)
        .join("; ");
