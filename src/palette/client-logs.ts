import type { PaletteApi } from "./api.ts";
import { type ClientCore, parseResponse, seg } from "./client-core.ts";
import { describeEndpoint } from "./error-map.ts";
import { logFetcherSchema, uidSchema } from "./schemas.ts";

/**
 * The Palette client's log fetch: ask the cluster for its logs, follow the request, download the
 * file as bytes. Three calls of one flow, apart from the rest of the client.
 */

/** how far back a log fetch reaches (v1ClusterLogFetcherRequest.duration; Palette's default) */
const LOG_HOURS = 10;

type LogCalls = Pick<PaletteApi, "requestLogs" | "getLogRequest" | "downloadLogs">;

export function logCalls({ call, exchange, counted }: ClientCore): LogCalls {
  return {
    async requestLogs(uid, lines, scope) {
      return counted(async () => {
        const response = await exchange({
          method: "POST",
          path: `/v1/spectroclusters/${seg(uid)}/features/logFetcher`,
          scope,
          body: { mode: "cluster", noOfLines: lines, duration: LOG_HOURS },
          requestClass: "create",
        });
        const endpoint = describeEndpoint("POST", "/v1/spectroclusters/{uid}/features/logFetcher");
        return parseResponse(response, uidSchema, endpoint).uid;
      });
    },

    async getLogRequest(uid, requestUid, scope) {
      const result = await call(
        {
          method: "GET",
          path: `/v1/spectroclusters/${seg(uid)}/features/logFetcher`,
          query: { requestId: requestUid },
          scope,
        },
        logFetcherSchema,
      );
      return {
        state: result.status?.state ?? undefined,
        fileName: result.spec?.log ?? undefined,
      };
    },

    async downloadLogs(requestUid, fileName, scope) {
      return counted(async () => {
        const response = await exchange({
          method: "GET",
          path: `/v1/spectroclusters/features/logFetcher/${seg(requestUid)}/download`,
          query: { fileName },
          scope,
          accept: "application/octet-stream",
        });
        return response.body;
      });
    },
  };
}
