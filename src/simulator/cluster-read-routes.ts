import { z } from "zod";
import type { ApiContext, ApiHandler } from "./api-context.ts";
import { clusterLookups } from "./api-lookups.ts";
import { badRequest, notFound, ok, page } from "./api-replies.ts";
import { kubeconfig, workloads } from "./details.ts";
import type { SimCluster } from "./fleet.ts";
import { clusterEvents } from "./lifecycle.ts";
import { paginate } from "./paging.ts";
import { sees } from "./rbac.ts";
import { clusterObject, clusterOverview, clusterSummary, componentEvent } from "./render.ts";
import type { Router } from "./routes.ts";
import {
  matchesSearch,
  type Searchable,
  type SearchBody,
  searchBodySchema,
  sortSearchables,
  UnsupportedFilter,
} from "./search.ts";
import type { SimState } from "./state.ts";

/**
 * What the bot reads about clusters: the search every listing starts from, one cluster, its
 * status and overview, its workloads, its kubeconfig and its events. Reads only; the writes on
 * the same paths live with the day-2 routes, so this file is where to look when a card shows
 * the wrong thing.
 */

const workloadsBodySchema = z
  .object({
    filter: z
      .object({ namespaces: z.array(z.string()).nullish() })
      .passthrough()
      .nullish(),
  })
  .passthrough()
  .nullish();

export function addClusterReadRoutes(
  router: Router<ApiHandler>,
  state: SimState,
  /** the events of an edge host (objectKind `edgehost`), src/simulator/edge/routes.ts */
  edgeHostEvents?: ApiHandler,
): void {
  const { scopedCluster, liveCluster } = clusterLookups(state);

  router.add("POST", "/v1/dashboard/spectroclusters/search", async (ctx) => {
    const raw = (await ctx.body()) ?? {};
    const parsed = searchBodySchema.safeParse(raw);
    if (!parsed.success) throw badRequest("search body does not match v1SearchFilterSummarySpec");
    const body: SearchBody = parsed.data;
    const now = state.now();
    const rows: (Searchable & { cluster: SimCluster })[] = [];
    try {
      for (const cluster of state.fleet.clusters) {
        if (ctx.projectUid && cluster.projectUid !== ctx.projectUid) continue;
        // tenant-wide, a user sees the clusters of the projects they have a role in
        if (!sees(ctx.caller, cluster.projectUid)) continue;
        const condition = state.condition(cluster);
        const row = {
          cluster,
          name: cluster.name,
          labels: cluster.labels,
          provider: cluster.provider,
          state: condition.state,
          health: condition.health,
          createdAt: cluster.createdAt,
          deleted: condition.state === "Deleted",
        };
        if (matchesSearch(row, body)) rows.push(row);
      }
    } catch (error) {
      if (error instanceof UnsupportedFilter) throw badRequest(error.message, "InvalidFilter");
      throw error;
    }
    const sorted = sortSearchables(rows, body);
    const { items, listmeta } = paginate(sorted, page(ctx.query));
    return ok({
      items: items.map((row) =>
        clusterSummary(state.fleet, row.cluster, state.condition(row.cluster), now),
      ),
      listmeta,
    });
  });

  router.add("GET", "/v1/spectroclusters/:uid", (ctx) => {
    const cluster = scopedCluster(ctx.params.uid ?? "", ctx.projectUid);
    return ok(clusterObject(state.fleet, cluster, state.condition(cluster), state.now()));
  });
  router.add("GET", "/v1/spectroclusters/:uid/status", (ctx) => {
    const cluster = scopedCluster(ctx.params.uid ?? "", ctx.projectUid);
    return ok({ status: { state: state.condition(cluster).state } });
  });
  router.add("GET", "/v1/dashboard/spectroclusters/:uid/overview", (ctx) => {
    const cluster = liveCluster(ctx.params.uid ?? "", ctx.projectUid);
    return ok(clusterOverview(state.fleet, cluster, state.condition(cluster), state.now()));
  });

  const workloadsOf = async (ctx: ApiContext) => {
    const cluster = liveCluster(ctx.params.uid ?? "", ctx.projectUid);
    const parsed = workloadsBodySchema.safeParse(await ctx.body());
    if (!parsed.success) throw badRequest("body does not match v1ClusterWorkloadsSpec");
    const namespaces = parsed.data?.filter?.namespaces ?? [];
    return workloads(cluster, state.condition(cluster), namespaces, state.now());
  };
  router.add("POST", "/v1/dashboard/spectroclusters/:uid/workloads", async (ctx) =>
    ok(await workloadsOf(ctx)),
  );
  const kinds: Record<string, keyof ReturnType<typeof workloads>["spec"]> = {
    pod: "pods",
    deployment: "deployments",
    statefulset: "statefulSets",
    daemonset: "daemonSets",
    job: "jobs",
    cronjob: "cronJobs",
  };
  router.add("POST", "/v1/dashboard/spectroclusters/:uid/workloads/:kind", async (ctx) => {
    const kind = ctx.params.kind ?? "";
    if (kind === "namespace") {
      const all = await workloadsOf(ctx);
      const names = new Set<string>();
      for (const list of Object.values(all.spec)) {
        for (const item of list as { metadata: { namespace: string } }[]) {
          names.add(item.metadata.namespace);
        }
      }
      return ok({
        namespaces: [...names].sort().map((name) => ({
          metadata: { entity: { kind: "Namespace", name, uid: name }, namespace: name },
        })),
      });
    }
    const key = kinds[kind];
    if (!key) throw notFound(`Workload kind '${kind}'`);
    const all = await workloadsOf(ctx);
    return ok({ [key]: all.spec[key] });
  });

  router.add("GET", "/v1/spectroclusters/:uid/assets/kubeconfig", (ctx) => {
    const cluster = liveCluster(ctx.params.uid ?? "", ctx.projectUid);
    const condition = state.condition(cluster);
    if (condition.state !== "Running" && condition.state !== "Updating") {
      throw notFound(`Kubeconfig of cluster '${cluster.uid}' (cluster is ${condition.state})`);
    }
    return {
      status: 200,
      raw: {
        data: kubeconfig(cluster),
        contentType: "application/octet-stream",
        filename: `${cluster.name}.kubeconfig`,
      },
    };
  });

  router.add("GET", "/v1/events/components/:objectKind/:objectUid", (ctx) => {
    if (ctx.params.objectKind === "edgehost" && edgeHostEvents) return edgeHostEvents(ctx);
    if (ctx.params.objectKind !== "spectrocluster") {
      throw notFound(`Events of kind '${ctx.params.objectKind}'`);
    }
    const cluster = scopedCluster(ctx.params.objectUid ?? "", ctx.projectUid);
    const now = state.now();
    const object = { kind: "spectrocluster" as const, name: cluster.name, uid: cluster.uid };
    const events = clusterEvents(cluster, now, state.times).map((event) =>
      componentEvent(object, event, { component: "palette-sim", host: "hubble" }),
    );
    return ok(paginate(events, page(ctx.query)));
  });
}
