import type { PaletteApi } from "./api.ts";
import { type ClientCore, nextToken, seg } from "./client-core.ts";
import type { CloudAccountKind, Provider } from "./providers-list.ts";
import {
  cloudAccountsSchema,
  clusterGroupsSchema,
  clusterProfilesMetadataSchema,
  edgeHostsSchema,
  projectsSummarySchema,
  uidSchema,
} from "./schemas.ts";
import { MAX_PAGE, unfilteredSearchBody } from "./search-body.ts";

/**
 * The Palette client's calls for launching a cluster: the options a launch offers (cloud
 * accounts, cluster profiles, cluster groups, edge hosts, projects) and the create itself. Apart
 * from the rest of the client so launch/ finds its requests in one place.
 */

type LaunchCalls = Pick<
  PaletteApi,
  | "listCloudAccounts"
  | "listClusterProfiles"
  | "listClusterGroups"
  | "listEdgeHosts"
  | "listProjects"
  | "createCluster"
>;

export function launchCalls({ call, allPages }: ClientCore): LaunchCalls {
  return {
    listCloudAccounts: (kind: CloudAccountKind, scope) =>
      allPages(async (next) => {
        const result = await call(
          {
            method: "GET",
            path: `/v1/cloudaccounts/${seg(kind)}`,
            query: { limit: MAX_PAGE, continue: next },
            scope,
          },
          cloudAccountsSchema,
        );
        return { items: result.items, continue: nextToken(result.listmeta?.continue) };
      }),

    async listClusterProfiles(scope) {
      const result = await call(
        { method: "GET", path: "/v1/dashboard/clusterprofiles/metadata", scope },
        clusterProfilesMetadataSchema,
      );
      return result.items;
    },

    async listClusterGroups(scope) {
      const result = await call(
        { method: "GET", path: "/v1/clustergroups/hostCluster", scope },
        clusterGroupsSchema,
      );
      return result.summaries;
    },

    listEdgeHosts: (scope) =>
      allPages(async (next) => {
        const result = await call(
          {
            method: "POST",
            path: "/v1/dashboard/edgehosts/search",
            query: { limit: MAX_PAGE, continue: next },
            scope,
            body: unfilteredSearchBody(),
          },
          edgeHostsSchema,
        );
        return { items: result.items, continue: nextToken(result.listmeta?.continue) };
      }),

    listProjects: () =>
      allPages(async (next) => {
        const result = await call(
          {
            method: "POST",
            path: "/v1/dashboard/projects",
            query: { limit: MAX_PAGE, continue: next },
            body: { filter: {}, sort: [] },
          },
          projectsSummarySchema,
        );
        return { items: result.items, continue: nextToken(result.listmeta?.continue) };
      }),

    async createCluster(provider: Provider, body, scope) {
      const result = await call(
        {
          method: "POST",
          path: `/v1/spectroclusters/${seg(provider)}`,
          query: { ProjectUid: scope.projectUid },
          scope,
          body,
          requestClass: "create",
        },
        uidSchema,
      );
      return result.uid;
    },
  };
}
