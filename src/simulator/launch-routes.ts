import { CLOUD_ACCOUNT_KINDS, isProvider } from "../palette/providers-list.ts";
import type { ApiHandler } from "./api-context.ts";
import { notFound, ok, page } from "./api-replies.ts";
import { validateCreate } from "./create-body.ts";
import type { SimCluster } from "./fleet.ts";
import { ApiError } from "./http-util.ts";
import { paginate } from "./paging.ts";
import { iso } from "./render.ts";
import type { Router } from "./routes.ts";
import type { SimState } from "./state.ts";

/**
 * What launching a cluster needs: the create itself (`POST /v1/spectroclusters/{provider}`) and
 * the inputs the launch form offers: cloud accounts, cluster profiles, cluster groups for
 * virtual clusters and edge hosts. Together because the launch flow is their only reader.
 */

export function addLaunchRoutes(router: Router<ApiHandler>, state: SimState): void {
  router.add("POST", "/v1/spectroclusters/:provider", async (ctx) => {
    const provider = ctx.params.provider ?? "";
    if (!isProvider(provider)) throw notFound(`Provider '${provider}'`);
    const input = validateCreate(provider, await ctx.body());
    const projectUid = ctx.projectUid ?? state.fleet.projects[0]?.uid ?? "";
    if (state.nameTaken(projectUid, input.name)) {
      throw new ApiError(
        409,
        "DuplicateClusterName",
        `a cluster named '${input.name}' already exists in this project`,
      );
    }
    const cluster = state.addCluster({ ...input, provider, projectUid, origin: "api" });
    return ok({ uid: cluster.uid }, 201);
  });
  router.add("GET", "/v1/cloudaccounts/:kind", (ctx) => {
    const kind = ctx.params.kind ?? "";
    if (!(CLOUD_ACCOUNT_KINDS as readonly string[]).includes(kind)) {
      throw notFound(`Cloud account kind '${kind}'`);
    }
    const accounts = state.fleet.cloudAccounts.filter(
      (account) =>
        account.kind === kind &&
        (!ctx.projectUid ||
          account.projectUid === undefined ||
          account.projectUid === ctx.projectUid),
    );
    const items = accounts.map((account) => ({
      apiVersion: "v1",
      kind: `${kind}account`,
      metadata: {
        uid: account.uid,
        name: account.name,
        creationTimestamp: iso(account.createdAt),
        annotations: { scope: account.projectUid ? "project" : "tenant" },
      },
      status: { state: "Running" },
    }));
    return ok(paginate(items, page(ctx.query)));
  });
  router.add("GET", "/v1/dashboard/clusterprofiles/metadata", () =>
    ok({
      items: state.fleet.profiles.map((profile) => ({
        metadata: { name: profile.name, uid: profile.uid },
        spec: { cloudType: profile.cloudType, version: profile.version },
      })),
    }),
  );
  router.add("GET", "/v1/clustergroups/hostCluster", () =>
    ok({
      summaries: state.fleet.clusterGroups.map((group) => {
        const hosts = group.hostClusterUids
          .map((uid) => state.cluster(uid))
          .filter((cluster): cluster is SimCluster => cluster !== undefined);
        return {
          metadata: { uid: group.uid, name: group.name, labels: {}, annotations: {} },
          spec: {
            scope: group.scope,
            endpointType: "LoadBalancer",
            kubernetesDistroType: "k3s",
            hostClusters: hosts.map((cluster) => ({
              kind: "spectrocluster",
              name: cluster.name,
              uid: cluster.uid,
              projectUid: cluster.projectUid,
            })),
            hostClustersCount: hosts.length,
            virtualClustersCount: state.fleet.clusters.filter(
              (cluster) => cluster.clusterGroupUid === group.uid,
            ).length,
          },
        };
      }),
    }),
  );
}
