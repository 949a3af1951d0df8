import { type ClientCore, nextToken, seg } from "./client-core.ts";
import type { PaletteEdgeApi } from "./edge-api.ts";
import {
  edgeHostDetail,
  edgeHostDeviceSchema,
  edgeHostDevicesSchema,
  edgeHostSummary,
  edgeHostsSearchSchema,
  edgeHostTagsSchema,
  edgeTokens,
  edgeTokensSchema,
} from "./edge-reads.ts";
import { edgeHostSearchBody } from "./edge-search-body.ts";
import { clusterEventsQuery, eventPage } from "./history.ts";
import { eventsSchema } from "./schemas.ts";
import { clampLimit } from "./search-body.ts";

/**
 * The Palette client's reads of the edge fleet (issue 39). edge-reads.ts says what the answers
 * mean and edge-search-body.ts what a search asks; this module sends the requests, through the
 * same pacing lanes as every other read (the caller's priority decides the lane).
 */

export function edgeCalls({ call }: ClientCore): PaletteEdgeApi {
  return {
    async searchEdgeHosts(query) {
      const { projectUid, sort, limit, continue: continueToken, ...filter } = query;
      const result = await call(
        {
          method: "POST",
          path: "/v1/dashboard/edgehosts/search",
          query: { limit: clampLimit(limit), continue: continueToken },
          scope: { projectUid },
          body: edgeHostSearchBody(filter, sort),
        },
        edgeHostsSearchSchema,
      );
      const following = nextToken(result.listmeta?.continue);
      const total = result.listmeta?.count;
      return {
        items: result.items.map(edgeHostSummary).filter((host) => host.uid !== ""),
        ...(following ? { continue: following } : {}),
        ...(typeof total === "number" ? { total } : {}),
      };
    },

    async getEdgeHost(uid, scope) {
      const body = await call(
        { method: "GET", path: `/v1/edgehosts/${seg(uid)}`, scope },
        edgeHostDeviceSchema,
      );
      return edgeHostDetail(body);
    },

    async clusterEdgeHosts(clusterUid, scope) {
      const body = await call(
        {
          method: "GET",
          path: `/v1/spectroclusters/${seg(clusterUid)}/edge-native/edgeHosts`,
          scope,
        },
        edgeHostDevicesSchema,
      );
      return body.items.map(edgeHostDetail).filter((host) => host.uid !== "");
    },

    async edgeHostTags(scope) {
      const body = await call(
        { method: "GET", path: "/v1/edgehosts/tags", scope },
        edgeHostTagsSchema,
      );
      return [...new Set(body.tags ?? [])].sort();
    },

    async edgeHostEventsPage(uid, scope, continueToken) {
      const path = `/v1/events/components/edgehost/${seg(uid)}`;
      const query = clusterEventsQuery(continueToken);
      return eventPage(await call({ method: "GET", path, query, scope }, eventsSchema));
    },

    async listEdgeTokens(scope) {
      return edgeTokens(
        await call({ method: "GET", path: "/v1/edgehosts/tokens", scope }, edgeTokensSchema),
      );
    },
  };
}
