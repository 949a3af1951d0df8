import { z } from "zod";
import type { ApiHandler } from "./api-context.ts";
import { clusterLookups } from "./api-lookups.ts";
import { badRequest, notFound, ok } from "./api-replies.ts";
import { type RadarBook, scheduledBackupStatuses } from "./radar-routes.ts";
import type { Router } from "./routes.ts";
import type { SimState } from "./state.ts";

/**
 * A cluster's features that run as requests and finish later: on-demand backups with the
 * backup policy's status, and the log fetcher (ask, poll until Completed, download). Apart
 * from the other day-2 routes because each answers with a request uid to follow, and a backup's
 * status also carries the policy's scheduled runs from the radar's book.
 */

export interface ClusterFeatureRouteDeps {
  state: SimState;
  /** the backup policy's scheduled runs: src/simulator/radar-routes.ts */
  radar: RadarBook;
}

const backupSchema = z.object({
  backupLocationUid: z.string().min(1),
  backupName: z.string().min(1).max(63),
  durationInHours: z.number().optional(),
  includeAllDisks: z.boolean().optional(),
  includeClusterResources: z.boolean().optional(),
  namespaces: z.array(z.string()).optional(),
});
const logFetcherSchema = z.object({
  mode: z.enum(["cluster", "app"]).optional(),
  noOfLines: z.number().int().positive().optional(),
  duration: z.number().int().positive().optional(),
});

export function addClusterFeatureRoutes(
  router: Router<ApiHandler>,
  deps: ClusterFeatureRouteDeps,
): void {
  const { state } = deps;
  const { liveCluster } = clusterLookups(state);

  router.add("GET", "/v1/spectroclusters/:uid/features/backup", (ctx) => {
    const cluster = liveCluster(ctx.params.uid ?? "", ctx.projectUid);
    const backup = cluster.backup;
    const wanted = ctx.query.get("backupRequestUid");
    const requests = (backup?.requests ?? []).filter((r) => !wanted || r.uid === wanted);
    // the policy's scheduled runs (the radar's backup history), when the policy has a location
    const scheduled =
      backup?.location && !wanted ? scheduledBackupStatuses(deps.radar, cluster) : undefined;
    return ok({
      metadata: { uid: cluster.uid, name: cluster.name },
      spec: {
        clusterUid: cluster.uid,
        config: backup?.location
          ? {
              backupLocationUid: backup.location.uid,
              backupLocationName: backup.location.name,
              durationInHours: 168,
              includeAllDisks: false,
              includeClusterResources: true,
              namespaces: [],
              schedule: { scheduledRunTime: scheduled?.schedule ?? "0 3 * * *" },
            }
          : {},
      },
      status: {
        clusterBackupStatuses: [
          ...requests.map((request) => ({
            backupRequestUid: request.uid,
            // a backup takes a while; then Palette reports it Completed
            state: state.now() < request.at + state.resizeMs ? "InProgress" : "Completed",
            backupStatusMeta: [{ backupName: request.name }],
          })),
          ...(scheduled?.statuses ?? []),
        ],
      },
    });
  });
  router.add("POST", "/v1/spectroclusters/:uid/features/backup/onDemand", async (ctx) => {
    const cluster = liveCluster(ctx.params.uid ?? "", ctx.projectUid);
    const parsed = backupSchema.safeParse(await ctx.body());
    if (!parsed.success)
      throw badRequest("body must be v1ClusterBackupConfig with backupLocationUid and backupName");
    if (
      !cluster.backup?.location ||
      parsed.data.backupLocationUid !== cluster.backup.location.uid
    ) {
      throw badRequest(
        `cluster '${cluster.name}' has no backup location '${parsed.data.backupLocationUid}'`,
      );
    }
    const request = {
      uid: `br${cluster.uid.slice(0, 10)}${cluster.backup.requests.length}`,
      name: parsed.data.backupName,
      at: state.now(),
    };
    cluster.backup.requests.push(request);
    return ok({ uid: request.uid }, 201);
  });
  router.add("POST", "/v1/spectroclusters/:uid/features/logFetcher", async (ctx) => {
    const cluster = liveCluster(ctx.params.uid ?? "", ctx.projectUid);
    const parsed = logFetcherSchema.safeParse(await ctx.body());
    if (!parsed.success) throw badRequest("body must be v1ClusterLogFetcherRequest");
    cluster.logRequests ??= [];
    const uid = `lf${cluster.uid.slice(0, 12)}${cluster.logRequests.length}`;
    cluster.logRequests.push({ uid, at: state.now(), lines: parsed.data.noOfLines ?? 1000 });
    return ok({ uid }, 201);
  });
  router.add("GET", "/v1/spectroclusters/:uid/features/logFetcher", (ctx) => {
    const cluster = liveCluster(ctx.params.uid ?? "", ctx.projectUid);
    const request = cluster.logRequests?.find((r) => r.uid === ctx.query.get("requestId"));
    if (!request) throw notFound(`Log fetcher request '${ctx.query.get("requestId")}'`);
    const ready = state.now() >= request.at + state.resizeMs;
    return ok({
      metadata: { uid: request.uid },
      spec: { clusterUid: cluster.uid, ...(ready ? { log: `${cluster.name}-logs.zip` } : {}) },
      status: { state: ready ? "Completed" : "InProgress" },
    });
  });
  router.add("GET", "/v1/spectroclusters/features/logFetcher/:requestUid/download", (ctx) => {
    const requestUid = ctx.params.requestUid ?? "";
    const cluster = state.fleet.clusters.find((c) =>
      c.logRequests?.some((r) => r.uid === requestUid),
    );
    if (!cluster || (ctx.projectUid && cluster.projectUid !== ctx.projectUid)) {
      throw notFound(`Log fetcher request '${requestUid}'`);
    }
    return {
      status: 200,
      raw: {
        data: `simulated logs of ${cluster.name} (request ${requestUid})\n`,
        contentType: "application/octet-stream",
        filename: ctx.query.get("fileName") ?? `${cluster.name}-logs.zip`,
      },
    };
  });
}
