import { z } from "zod";
import type { ApiHandler } from "./api-context.ts";
import { clusterLookups } from "./api-lookups.ts";
import { badRequest, notFound, ok } from "./api-replies.ts";
import type { TokenStore } from "./auth.ts";
import { addAuthRoutes } from "./auth-routes.ts";
import { addClusterReadRoutes } from "./cluster-read-routes.ts";
import { ApiError } from "./http-util.ts";
import type { UserDirectory } from "./identity.ts";
import { addIdentityRoutes } from "./identity-routes.ts";
import { addLaunchRoutes } from "./launch-routes.ts";
import { addMachinePoolRoutes } from "./machine-pool-routes.ts";
import { attachedProfileUid, profileVersion, versionsOf } from "./profile-versions.ts";
import { addProjectRoutes } from "./project-routes.ts";
import { addRadarRoutes, type RadarBook, scheduledBackupStatuses } from "./radar-routes.ts";
import { iso, PROFILE_SETTLE_MS } from "./render.ts";
import { Router } from "./routes.ts";
import type { SimState } from "./state.ts";
import type { SimulatorCredentials } from "./types.ts";

/** Every Palette endpoint the bot uses, on the real paths with the real response shapes. */

export type { ApiContext, ApiHandler } from "./api-context.ts";
export { validateCreate } from "./create-body.ts";

export interface ApiDeps {
  state: SimState;
  tokens: TokenStore;
  credentials: SimulatorCredentials;
  users: UserDirectory;
  /** the radar's facts (certificates, backup runs, profile updates): src/simulator/radar-routes.ts */
  radar: RadarBook;
}

export function buildApiRouter(deps: ApiDeps): Router<ApiHandler> {
  const { state, tokens, credentials } = deps;
  const router = new Router<ApiHandler>();
  addIdentityRoutes(router, { state, users: deps.users, credentials });
  addRadarRoutes(router, { state, book: deps.radar });
  addAuthRoutes(router, { tokens, credentials });
  addClusterReadRoutes(router, state);
  addProjectRoutes(router, state);
  addLaunchRoutes(router, state);
  addMachinePoolRoutes(router, state);

  const { liveCluster } = clusterLookups(state);

  // --- clusters
  router.add("DELETE", "/v1/spectroclusters/:uid", (ctx) => {
    const cluster = liveCluster(ctx.params.uid ?? "", ctx.projectUid);
    state.deleteCluster(cluster);
    return { status: 204 };
  });

  router.add("GET", "/v1/spectroclusters/:uid/repave/status", (ctx) => {
    const cluster = liveCluster(ctx.params.uid ?? "", ctx.projectUid);
    const repave = cluster.repave;
    return ok({
      metadata: { uid: cluster.uid, name: cluster.name },
      spec: {
        spectroClusterUid: cluster.uid,
        reasons: (repave?.reasons ?? []).map((message) => ({ code: "PackValuesChanged", message })),
      },
      status: repave ? { state: repave.state, repaveTransitionTime: iso(repave.at) } : {},
    });
  });
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
  router.add("GET", "/v1/clusterprofiles/:uid", (ctx) => {
    const found = profileVersion(state.fleet, ctx.params.uid ?? "");
    if (!found) throw notFound(`Cluster profile '${ctx.params.uid}'`);
    const template = (version: typeof found) => ({
      uid: version.uid,
      name: version.profile.name,
      cloudType: version.profile.cloudType,
      type: "cluster",
      version: 1,
      profileVersion: version.version,
      packs: version.packs.map((pack) => ({ ...pack, type: "spectro", values: "" })),
    });
    return ok({
      metadata: { uid: found.uid, name: found.profile.name },
      spec: {
        version: found.version,
        versions: versionsOf(found.profile).map((v) => ({ uid: v.uid, version: v.version })),
        published: template(found),
      },
    });
  });
  router.add("PATCH", "/v1/spectroclusters/:uid/profiles", async (ctx) => {
    const cluster = liveCluster(ctx.params.uid ?? "", ctx.projectUid);
    const parsed = profilesSchema.safeParse(await ctx.body());
    if (!parsed.success)
      throw badRequest("body must be v1SpectroClusterProfiles {profiles: [...]}");
    for (const entry of parsed.data.profiles) {
      const target = profileVersion(state.fleet, entry.uid);
      const current = attachedProfileUid(cluster, state.now(), PROFILE_SETTLE_MS);
      if (!target) throw notFound(`Cluster profile '${entry.uid}'`);
      if (entry.replaceWithProfile !== undefined && entry.replaceWithProfile !== current) {
        throw badRequest(
          `profile '${entry.replaceWithProfile}' is not attached to '${cluster.name}'`,
        );
      }
      const from = profileVersion(state.fleet, current);
      if (from && from.profile.uid !== target.profile.uid) {
        throw badRequest(`'${entry.uid}' is not a version of '${from.profile.name}'`);
      }
      cluster.profileUid = current;
      cluster.profileUpgrade = { to: target.uid, at: state.now() };
    }
    return { status: 204 };
  });
  router.add("PATCH", "/v1/spectroclusters/:uid/repave/approve", (ctx) => {
    const cluster = liveCluster(ctx.params.uid ?? "", ctx.projectUid);
    if (cluster.repave?.state !== "Pending") {
      throw new ApiError(
        409,
        "RepaveNotPending",
        `cluster '${cluster.name}' has no repave pending approval`,
      );
    }
    cluster.repave = { ...cluster.repave, state: "Approved", at: state.now() };
    return { status: 204 };
  });
  router.add("PATCH", "/v1/spectroclusters/:uid/clusterConfig/lifecycleConfig", async (ctx) => {
    const cluster = liveCluster(ctx.params.uid ?? "", ctx.projectUid);
    const parsed = lifecycleSchema.safeParse(await ctx.body());
    if (!parsed.success)
      throw badRequest("body must be v1LifecycleConfigEntity {lifecycleConfig: {pause}}");
    if (cluster.provider !== "virtual") {
      throw badRequest(
        `cluster '${cluster.name}' is not a virtual cluster; only virtual clusters pause`,
      );
    }
    cluster.pause = { pause: parsed.data.lifecycleConfig.pause, at: state.now() };
    return { status: 204 };
  });
  return router;
}

const lifecycleSchema = z.object({ lifecycleConfig: z.object({ pause: z.boolean() }) });
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
const profilesSchema = z.object({
  profiles: z
    .array(
      z.object({
        uid: z.string().min(1),
        replaceWithProfile: z.string().optional(),
        packValues: z.array(z.unknown()).optional(),
      }),
    )
    .min(1),
});
