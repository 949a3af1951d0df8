import type { ClusterSearch, Page, PaletteApi } from "./api.ts";
import { type ClientCore, nextToken, seg } from "./client-core.ts";
import { decodeKubeconfig } from "./kubeconfig.ts";
import { nextPageToken } from "./paging.ts";
import {
  alertComponentsSchema,
  type ClusterSummary,
  clusterOverviewSchema,
  clusterSchema,
  clusterStatusSchema,
  clustersSummarySchema,
  workloadsSchema,
} from "./schemas.ts";
import { clampLimit, clusterSearchBody, MAX_PAGE } from "./search-body.ts";

/**
 * The Palette client's reads of clusters: the search (one page, or every page) and what the read
 * verbs show of one cluster (itself, its overview, state, workloads, kubeconfig) and the project's
 * alert kinds. Apart from the core (client-core.ts) so the requests the read verbs and the poll
 * depend on are found in one place.
 */

type ClusterReads = Pick<
  PaletteApi,
  | "searchClusters"
  | "searchAllClusters"
  | "getCluster"
  | "getClusterOverview"
  | "getClusterState"
  | "getWorkloads"
  | "getKubeconfig"
  | "listAlertComponents"
>;

export function clusterReads({ call, exchange, counted }: ClientCore): ClusterReads {
  async function searchClusters(query: ClusterSearch): Promise<Page<ClusterSummary>> {
    const result = await call(
      {
        method: "POST",
        path: "/v1/dashboard/spectroclusters/search",
        query: { limit: clampLimit(query.limit), continue: query.continue },
        scope: query,
        body: clusterSearchBody(query),
      },
      clustersSummarySchema,
    );
    return {
      items: result.items,
      continue: nextToken(result.listmeta?.continue),
      total: result.listmeta?.count ?? undefined,
    };
  }

  return {
    searchClusters,

    async *searchAllClusters(query) {
      const seen = new Set<string>();
      let next: string | undefined;
      for (let page = 0; ; page++) {
        const result = await searchClusters({ ...query, limit: MAX_PAGE, continue: next });
        yield* result.items;
        next = nextPageToken(result.continue, seen, page, "cluster search");
        if (!next) return;
      }
    },

    getCluster: (uid, scope) =>
      call(
        {
          method: "GET",
          path: `/v1/spectroclusters/${seg(uid)}`,
          query: { ProjectUid: scope.projectUid },
          scope,
        },
        clusterSchema,
      ),

    getClusterOverview: (uid, scope) =>
      call(
        { method: "GET", path: `/v1/dashboard/spectroclusters/${seg(uid)}/overview`, scope },
        clusterOverviewSchema,
      ),

    async getClusterState(uid, scope) {
      const result = await call(
        { method: "GET", path: `/v1/spectroclusters/${seg(uid)}/status`, scope },
        clusterStatusSchema,
      );
      return result.status?.state ?? undefined;
    },

    getWorkloads: (uid, namespaces, scope) =>
      call(
        {
          method: "POST",
          path: `/v1/dashboard/spectroclusters/${seg(uid)}/workloads`,
          scope,
          body: { filter: { namespaces } },
        },
        workloadsSchema,
      ),

    async getKubeconfig(uid, scope) {
      return counted(async () => {
        const response = await exchange({
          method: "GET",
          path: `/v1/spectroclusters/${seg(uid)}/assets/kubeconfig`,
          scope,
          accept: "application/octet-stream",
        });
        return decodeKubeconfig(response.body);
      });
    },

    async listAlertComponents(scope) {
      const result = await call(
        { method: "GET", path: "/v1/projects/alerts", scope },
        alertComponentsSchema,
      );
      return result.components ?? [];
    },
  };
}
