import type { PaletteApi } from "./api.ts";
import { type ClientCore, parseResponse, seg } from "./client-core.ts";
import { describeEndpoint } from "./error-map.ts";
import { clusterBackupSchema, clusterProfileSchema, repaveSchema, uidSchema } from "./schemas.ts";

/**
 * The Palette client's day-2 changes and the reads each one plans from: a held repave, an
 * on-demand backup, a profile upgrade, pausing a virtual cluster, deleting a cluster. Writes go
 * through the core's `write` (sent once; only a 429 or 503 is tried again); the on-demand backup
 * is sent as a create and the delete as a delete (a 404 after an earlier try counts as done).
 */

type DayTwoCalls = Pick<
  PaletteApi,
  | "getRepaveStatus"
  | "approveRepave"
  | "getBackup"
  | "backupNow"
  | "getClusterProfile"
  | "updateClusterProfiles"
  | "setLifecyclePause"
  | "deleteCluster"
>;

export function dayTwoCalls({ call, write, exchange, counted }: ClientCore): DayTwoCalls {
  return {
    async getRepaveStatus(uid, scope) {
      const result = await call(
        { method: "GET", path: `/v1/spectroclusters/${seg(uid)}/repave/status`, scope },
        repaveSchema,
      );
      return {
        state: result.status?.state ?? undefined,
        reasons: (result.spec?.reasons ?? []).map((reason) => reason.message ?? reason.code ?? ""),
      };
    },

    approveRepave: (uid, scope) =>
      write({ method: "PATCH", path: `/v1/spectroclusters/${seg(uid)}/repave/approve`, scope }),

    async getBackup(uid, scope, requestUid) {
      const result = await call(
        {
          method: "GET",
          path: `/v1/spectroclusters/${seg(uid)}/features/backup`,
          query: { backupRequestUid: requestUid },
          scope,
        },
        clusterBackupSchema,
      );
      const config = result.spec?.config;
      const request = (result.status?.clusterBackupStatuses ?? []).find(
        (entry) => requestUid !== undefined && entry.backupRequestUid === requestUid,
      );
      return {
        location: config?.backupLocationUid
          ? { uid: config.backupLocationUid, name: config.backupLocationName ?? "" }
          : undefined,
        ttlHours: config?.durationInHours ?? undefined,
        includeAllDisks: config?.includeAllDisks ?? undefined,
        includeClusterResources: config?.includeClusterResources ?? undefined,
        namespaces: config?.namespaces ?? [],
        requestState: request?.state ?? undefined,
      };
    },

    async backupNow(uid, config, scope) {
      return counted(async () => {
        const response = await exchange({
          method: "POST",
          path: `/v1/spectroclusters/${seg(uid)}/features/backup/onDemand`,
          scope,
          body: config,
          requestClass: "create",
        });
        const endpoint = describeEndpoint(
          "POST",
          "/v1/spectroclusters/{uid}/features/backup/onDemand",
        );
        return parseResponse(response, uidSchema, endpoint).uid;
      });
    },

    async getClusterProfile(uid, scope) {
      const result = await call(
        { method: "GET", path: `/v1/clusterprofiles/${seg(uid)}`, scope },
        clusterProfileSchema,
      );
      return {
        uid: result.metadata?.uid ?? uid,
        name: result.metadata?.name ?? result.spec?.published?.name ?? "",
        version: result.spec?.version ?? undefined,
        versions: (result.spec?.versions ?? []).flatMap((entry) =>
          entry.uid && entry.version ? [{ uid: entry.uid, version: entry.version }] : [],
        ),
        packs: (result.spec?.published?.packs ?? []).flatMap((pack) =>
          pack.name ? [{ name: pack.name, tag: pack.tag ?? undefined }] : [],
        ),
      };
    },

    updateClusterProfiles: (uid, profiles, scope) =>
      write({
        method: "PATCH",
        path: `/v1/spectroclusters/${seg(uid)}/profiles`,
        scope,
        body: { profiles },
      }),

    setLifecyclePause: (uid, pause, scope) =>
      write({
        method: "PATCH",
        path: `/v1/spectroclusters/${seg(uid)}/clusterConfig/lifecycleConfig`,
        scope,
        body: { lifecycleConfig: { pause } },
      }),

    async deleteCluster(uid, scope) {
      return counted(async () => {
        await exchange({
          method: "DELETE",
          path: `/v1/spectroclusters/${seg(uid)}`,
          scope,
          requestClass: "delete",
        });
      });
    },
  };
}
