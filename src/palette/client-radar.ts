import type { PaletteApi } from "./api.ts";
import { type ClientCore, seg } from "./client-core.ts";
import {
  backupHistory,
  backupHistorySchema,
  certificateExpiries,
  machineCertificatesSchema,
  pendingRepavePage,
  profileUpdates,
  profileUpdatesSchema,
  repaveListSchema,
} from "./radar-reads.ts";
import { MAX_PAGE } from "./search-body.ts";

/**
 * The Palette client's calls for the radar (issue 28): certificate expiries and their renewal,
 * the fleet's pending repaves, newer profile versions, backup history. radar-reads.ts says what
 * the answers mean; this module sends the requests.
 */

type RadarCalls = Pick<
  PaletteApi,
  | "getCertificates"
  | "renewCertificates"
  | "pendingRepavesPage"
  | "getProfileUpdates"
  | "getBackupHistory"
>;

export function radarCalls({ call, write }: ClientCore): RadarCalls {
  return {
    getCertificates: async (uid, scope) =>
      certificateExpiries(
        await call(
          { method: "GET", path: `/v1/spectroclusters/${seg(uid)}/k8certificates`, scope },
          machineCertificatesSchema,
        ),
      ),

    renewCertificates: (uid, scope) =>
      write({
        method: "PATCH",
        path: `/v1/spectroclusters/${seg(uid)}/k8certificates/renew`,
        scope,
      }),

    pendingRepavesPage: async (scope, continueToken) =>
      pendingRepavePage(
        await call(
          {
            method: "GET",
            path: "/v1/dashboard/spectroclusters/repaveStatus",
            query: { repaveState: "Pending", limit: MAX_PAGE, continue: continueToken },
            scope,
          },
          repaveListSchema,
        ),
      ),

    getProfileUpdates: async (uid, scope) =>
      profileUpdates(
        await call(
          { method: "GET", path: `/v1/spectroclusters/${seg(uid)}/profileUpdates`, scope },
          profileUpdatesSchema,
        ),
      ),

    getBackupHistory: async (uid, scope) =>
      backupHistory(
        await call(
          { method: "GET", path: `/v1/spectroclusters/${seg(uid)}/features/backup`, scope },
          backupHistorySchema,
        ),
      ),
  };
}
