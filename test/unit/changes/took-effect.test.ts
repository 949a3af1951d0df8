import { describe, expect, it } from "vitest";
import { tookEffect } from "../../../src/changes/progress.ts";
import type { ChangeCluster, ChangePlan } from "../../../src/model/change.ts";
import type { PaletteApi } from "../../../src/palette/api.ts";
import { PaletteError } from "../../../src/palette/errors.ts";

/**
 * Whether a write whose answer was lost took effect, from what Palette's reads say. The reads
 * are stubbed here (their shapes are the client's); the simulator case is in changes-ends.
 */

const cluster: ChangeCluster = {
  uid: "c1",
  name: "web",
  projectUid: "p1",
  cloudType: "aws",
  state: "Running",
};

/** a PaletteApi whose every read not given throws: tookEffect must only read, and only these */
function reads(given: Partial<PaletteApi>): PaletteApi {
  return new Proxy(given as PaletteApi, {
    get(target, property) {
      const value = Reflect.get(target, property);
      if (value) return value;
      return () => {
        throw new Error(`tookEffect called ${String(property)}`);
      };
    },
  });
}

const scale: ChangePlan = { verb: "scale", cluster, configUid: "cfg", pool: "w", from: 3, to: 5 };

describe("tookEffect", () => {
  it("scale: the pool's stored size is the new one", async () => {
    const at = (size: number) => reads({ getMachinePool: async () => ({ name: "w", size }) });
    expect(await tookEffect(scale, at(5))).toBe(true);
    expect(await tookEffect(scale, at(3))).toBe(false);
    expect(await tookEffect(scale, reads({ getMachinePool: async () => undefined }))).toBe(false);
  });

  it("delete: Deleting, Deleted or gone (404) took effect; Running did not", async () => {
    const plan: ChangePlan = { verb: "delete", cluster };
    const state = (value: string | undefined) => reads({ getClusterState: async () => value });
    expect(await tookEffect(plan, state("Deleting"))).toBe(true);
    expect(await tookEffect(plan, state(undefined))).toBe(true);
    expect(await tookEffect(plan, state("Running"))).toBe(false);
    const gone = reads({
      getClusterState: async () => {
        throw new PaletteError("not_found", 404, "ResourceNotFound", "gone", undefined, "GET x");
      },
    });
    expect(await tookEffect(plan, gone)).toBe(true);
    const refused = reads({
      getClusterState: async () => {
        throw new PaletteError("forbidden", 403, undefined, "no", undefined, "GET x");
      },
    });
    await expect(tookEffect(plan, refused)).rejects.toThrow("no");
  });

  it("cordon: the machine's maintenance action is the one asked", async () => {
    const plan: ChangePlan = {
      verb: "cordon",
      cluster,
      configUid: "cfg",
      pool: "w",
      machine: { uid: "m1", name: "node-1" },
    };
    const machine = (action?: string) =>
      reads({
        listMachines: async () => [
          {
            metadata: { uid: "m1" },
            status: { maintenanceStatus: { action, state: "Initiated" } },
          },
        ],
      } as Partial<PaletteApi>);
    expect(await tookEffect(plan, machine("cordon"))).toBe(true);
    expect(await tookEffect(plan, machine(undefined))).toBe(false);
  });

  it("repave: anything but Pending; upgrade: the new version attached", async () => {
    const repave: ChangePlan = { verb: "repave", cluster, reasons: [] };
    const repaveAt = (state: string) =>
      reads({ getRepaveStatus: async () => ({ state, reasons: [] }) });
    expect(await tookEffect(repave, repaveAt("Approved"))).toBe(true);
    expect(await tookEffect(repave, repaveAt("Pending"))).toBe(false);
    const upgrade: ChangePlan = {
      verb: "upgrade",
      cluster,
      profile: {
        name: "base",
        fromUid: "p-old",
        fromVersion: "1.0",
        toUid: "p-new",
        toVersion: "1.1",
      },
      packs: [],
    };
    const attached = (uid: string) =>
      reads({
        getCluster: async () => ({ spec: { clusterProfileTemplates: [{ uid }] } }),
      } as Partial<PaletteApi>);
    expect(await tookEffect(upgrade, attached("p-new"))).toBe(true);
    expect(await tookEffect(upgrade, attached("p-old"))).toBe(false);
  });

  it("logs and backup: without the request's uid (it was in the lost answer) Palette cannot say", async () => {
    const none = reads({});
    expect(await tookEffect({ verb: "logs", cluster, lines: 100 }, none)).toBeUndefined();
    expect(
      await tookEffect(
        {
          verb: "backup",
          cluster,
          location: { uid: "l", name: "s3" },
          backupName: "b",
          ttlHours: 1,
          includeAllDisks: false,
          includeClusterResources: true,
          namespaces: [],
        },
        none,
      ),
    ).toBeUndefined();
  });
});
