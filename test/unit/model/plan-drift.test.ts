import { describe, expect, it } from "vitest";
import type {
  BackupPlan,
  ChangeCluster,
  ChangePlan,
  LogsPlan,
  MaintenancePlan,
  RepavePlan,
  ScalePlan,
  UpgradePlan,
} from "../../../src/model/change.ts";
import { planDrift } from "../../../src/model/plan-drift.ts";
import {
  differenceLine,
  driftRefusal,
  requesterNotAllowed,
  requesterTold,
} from "../../../src/views/change-drift.ts";

const cluster: ChangeCluster = {
  uid: "c1",
  name: "web",
  projectUid: "p1",
  cloudType: "aws",
  state: "Running",
};

const scale: ScalePlan = {
  verb: "scale",
  cluster,
  configUid: "cfg",
  pool: "workers",
  from: 3,
  to: 5,
  autoscale: { min: 2, max: 6 },
};
const cordon: MaintenancePlan = {
  verb: "cordon",
  cluster,
  configUid: "cfg",
  pool: "workers",
  machine: { uid: "m1", name: "web-workers-a" },
};
const repave: RepavePlan = {
  verb: "repave",
  cluster,
  reasons: ["kubernetes 1.29.4 → 1.29.6 changes the node image", "ubuntu 22.04 → 24.04"],
};
const upgrade: UpgradePlan = {
  verb: "upgrade",
  cluster,
  profile: { name: "base", fromUid: "pf1", fromVersion: "1.0.0", toUid: "pf2", toVersion: "1.1.0" },
  packs: [
    { name: "kubernetes", from: "1.29.4", to: "1.29.6" },
    { name: "cni-calico", from: "3.27.0", to: "3.27.3" },
  ],
};
const backup: BackupPlan = {
  verb: "backup",
  cluster,
  location: { uid: "bsl-1", name: "s3-backups" },
  backupName: "chatops-web-202611251200",
  ttlHours: 168,
  includeAllDisks: false,
  includeClusterResources: true,
  namespaces: ["shop", "auth"],
};
const logs: LogsPlan = { verb: "logs", cluster, lines: 1000 };

describe("planDrift: the whole plan, verb by verb", () => {
  it("is empty when Palette still matches, for every verb", () => {
    const plans: ChangePlan[] = [
      scale,
      cordon,
      { ...cordon, verb: "uncordon" },
      repave,
      upgrade,
      backup,
      logs,
      { verb: "delete", cluster },
      { verb: "pause", cluster: { ...cluster, cloudType: "virtual" } },
      { verb: "resume", cluster: { ...cluster, cloudType: "virtual" } },
    ];
    for (const plan of plans) expect(planDrift(plan, structuredClone(plan))).toEqual([]);
  });

  it("a different cluster under the same name is the only thing said", () => {
    const other = { ...scale, cluster: { ...cluster, uid: "c2" }, from: 1 };
    expect(planDrift(scale, other)).toEqual([
      { what: "the cluster named web", was: "c1", now: "a different cluster (c2)" },
    ]);
  });

  it("the cluster itself: state, name, project, cloud type (delete, pause, resume)", () => {
    const plan: ChangePlan = { verb: "delete", cluster };
    const moved: ChangePlan = {
      verb: "delete",
      cluster: { ...cluster, state: "Updating", name: "web-2", projectUid: "p2" },
    };
    expect(planDrift(plan, moved)).toEqual([
      { what: "the cluster's state", was: "Running", now: "Updating" },
      { what: "the cluster's name", was: "web", now: "web-2" },
      { what: "the cluster's project", was: "p1", now: "p2" },
    ]);
    // a project not known when planned is not a difference
    const unknown: ChangePlan = { verb: "delete", cluster: { ...cluster, projectUid: "" } };
    expect(planDrift(unknown, plan)).toEqual([]);
    const pause: ChangePlan = { verb: "pause", cluster: { ...cluster, cloudType: "virtual" } };
    expect(planDrift(pause, { verb: "pause", cluster: { ...cluster, cloudType: "aws" } })).toEqual([
      { what: "the cluster's cloud type", was: "virtual", now: "aws" },
    ]);
  });

  it("scale: the pool's size, its autoscale range and its cloud config", () => {
    expect(planDrift(scale, { ...scale, from: 4 })).toEqual([
      { what: "the size of pool workers", was: "3 nodes", now: "4 nodes" },
    ]);
    expect(planDrift(scale, { ...scale, autoscale: { min: 2, max: 4 } })).toEqual([
      { what: "the autoscale range of pool workers", was: "2 to 6 nodes", now: "2 to 4 nodes" },
    ]);
    const { autoscale: _, ...fixed } = scale;
    expect(planDrift(scale, fixed)).toEqual([
      {
        what: "the autoscale range of pool workers",
        was: "2 to 6 nodes",
        now: "none (a fixed size)",
      },
    ]);
    expect(planDrift(scale, { ...scale, configUid: "cfg-2" })).toHaveLength(1);
  });

  it("cordon and uncordon: the machine and its pool", () => {
    const renamed = { ...cordon, machine: { uid: "m1", name: "web-workers-b" } };
    expect(planDrift(cordon, renamed)).toEqual([
      {
        what: "the machine",
        was: "web-workers-a (m1)",
        now: "web-workers-b (m1)",
      },
    ]);
    const uncordon: MaintenancePlan = { ...cordon, verb: "uncordon" };
    expect(planDrift(uncordon, { ...uncordon, pool: "spot" })).toEqual([
      { what: "the machine's pool", was: "workers", now: "spot" },
    ]);
  });

  it("repave: Palette's reasons, in any order", () => {
    const reordered = { ...repave, reasons: [...repave.reasons].reverse() };
    expect(planDrift(repave, reordered)).toEqual([]);
    const other = { ...repave, reasons: ["kubernetes 1.29.4 → 1.30.0 changes the node image"] };
    const [difference] = planDrift(repave, other);
    expect(difference!.what).toBe("Palette's reasons for the repave");
    expect(difference!.was).toContain("1.29.6");
    expect(difference!.now).toBe("kubernetes 1.29.4 → 1.30.0 changes the node image");
    expect(planDrift(repave, { ...repave, reasons: [] })[0]!.now).toBe("none");
  });

  it("upgrade: the profile versions (uids too) and the packs that change", () => {
    const republished = { ...upgrade, profile: { ...upgrade.profile, toUid: "pf3" } };
    expect(planDrift(upgrade, republished)).toEqual([
      {
        what: "the target version of base",
        was: "1.1.0 (pf2)",
        now: "1.1.0 (pf3)",
      },
    ]);
    const attached = {
      ...upgrade,
      profile: { ...upgrade.profile, fromUid: "pf0", fromVersion: "0.9.0" },
    };
    expect(planDrift(upgrade, attached)[0]!.what).toBe("the attached version of base");
    const packs = {
      ...upgrade,
      packs: [...upgrade.packs, { name: "csi-aws", from: "1.0.0" }],
    };
    const [difference] = planDrift(upgrade, packs);
    expect(difference!.what).toBe("the packs that change");
    expect(difference!.now).toContain("csi-aws 1.0.0 → (removed)");
    // the same packs in another order are the same upgrade
    expect(planDrift(upgrade, { ...upgrade, packs: [...upgrade.packs].reverse() })).toEqual([]);
  });

  it("backup: the location and the policy's settings, never the name's time stamp", () => {
    expect(planDrift(backup, { ...backup, backupName: "chatops-web-202611251300" })).toEqual([]);
    expect(planDrift(backup, { ...backup, location: { uid: "bsl-2", name: "gcs" } })).toEqual([
      { what: "the backup location", was: "s3-backups (bsl-1)", now: "gcs (bsl-2)" },
    ]);
    const settings = {
      ...backup,
      ttlHours: 24,
      includeAllDisks: true,
      includeClusterResources: false,
      namespaces: [],
    };
    expect(planDrift(backup, settings).map((difference) => difference.what)).toEqual([
      "how long the backup is kept",
      "the namespaces backed up",
      "whether cluster resources are included",
      "whether all disks are included",
    ]);
    expect(planDrift(backup, { ...backup, namespaces: ["auth", "shop"] })).toEqual([]);
  });

  it("logs: the lines collected", () => {
    expect(planDrift(logs, { ...logs, lines: 500 })).toEqual([
      { what: "the lines collected of each log", was: "1000", now: "500" },
    ]);
  });
});

describe("what a refused approval says", () => {
  it("each difference in a line, names escaped in mrkdwn and in the fallback text", () => {
    const line = differenceLine({ what: "the size of pool <!channel>", was: "3", now: "4" });
    expect(line).toBe("The size of pool <!channel>: now 4 (it was 3).");
    const refusal = driftRefusal([line], "it was asked");
    expect(refusal.mrkdwn).toContain("• The size of pool &lt;!channel&gt;: now 4 (it was 3).");
    expect(refusal.mrkdwn).not.toContain("<!channel>");
    expect(refusal.text).not.toContain("<!channel>");
    expect(refusal.reason).toContain("changed since it was asked");
  });

  it("the requester no longer allowed: named to the approver, told as theirs to the requester", () => {
    const refusal = requesterNotAllowed(scale, "W111");
    expect(refusal.mrkdwn).toContain("<@W111>, who asked, is no longer allowed to scale");
    expect(refusal.mrkdwn).toContain("`ALLOW_SCALE`");
    const told = requesterTold(scale, "W222", refusal);
    expect(told.mrkdwn).toContain("approved by <@W222> but not sent: you are no longer allowed");
    const repaveRefusal = requesterNotAllowed(repave, "W111");
    expect(repaveRefusal.reason).toContain("ALLOW_MAINTENANCE");
  });
});
