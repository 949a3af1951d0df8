import type { PaletteApi } from "./api.ts";
import { type ClientCore, nextToken, seg } from "./client-core.ts";
import { cloudConfigPath, machinesPath } from "./cloud-config-path.ts";
import { cloudConfigSchema, machinesSchema, rawMachinePoolsSchema } from "./schemas.ts";
import { MAX_PAGE } from "./search-body.ts";

/**
 * The Palette client's calls on a cluster's cloud config: its machine pools and their nodes
 * (read, scale or resize a pool, cordon or uncordon a machine). They share the cloud-config path
 * (cloud-config-path.ts), so they live together, apart from the rest of the client.
 */

type MachinePoolCalls = Pick<
  PaletteApi,
  | "getCloudConfig"
  | "listMachines"
  | "getMachinePool"
  | "updateMachinePool"
  | "setMachineMaintenance"
>;

export function machinePoolCalls({ call, write, allPages }: ClientCore): MachinePoolCalls {
  return {
    getCloudConfig: (kind, configUid, scope) =>
      call({ method: "GET", path: cloudConfigPath(kind, configUid), scope }, cloudConfigSchema),

    listMachines: (kind, configUid, pool, scope) =>
      allPages(async (next) => {
        const result = await call(
          {
            method: "GET",
            path: machinesPath(kind, configUid, pool),
            query: { limit: MAX_PAGE, continue: next },
            scope,
          },
          machinesSchema,
        );
        return { items: result.items, continue: nextToken(result.listmeta?.continue) };
      }),

    async getMachinePool(kind, configUid, pool, scope) {
      const config = await call(
        { method: "GET", path: cloudConfigPath(kind, configUid), scope },
        rawMachinePoolsSchema,
      );
      return config.spec?.machinePoolConfig?.find((entry) => entry.name === pool);
    },

    updateMachinePool: (kind, configUid, pool, body, scope) =>
      write({
        method: "PUT",
        path: `${cloudConfigPath(kind, configUid)}/machinePools/${seg(pool)}`,
        scope,
        body,
      }),

    setMachineMaintenance: (kind, configUid, pool, machineUid, action, scope) =>
      write({
        method: "PUT",
        path: `${machinesPath(kind, configUid, pool)}/${seg(machineUid)}/maintenance`,
        scope,
        body: { action },
      }),
  };
}
