import { z } from "zod";
import type { ApiHandler } from "./api-context.ts";
import { clusterLookups } from "./api-lookups.ts";
import { badRequest, notFound, ok } from "./api-replies.ts";
import { ApiError } from "./http-util.ts";
import { attachedProfileUid, profileVersion, versionsOf } from "./profile-versions.ts";
import { iso, PROFILE_SETTLE_MS } from "./render.ts";
import type { Router } from "./routes.ts";
import type { SimState } from "./state.ts";

/**
 * The day-2 changes that act on a whole cluster by its uid: delete, approve a pending repave
 * (and read its status), move to another version of its cluster profile (and read the
 * profile's versions), and pause or resume a virtual cluster. Kept together because they are
 * the writes the change path plans, confirms and checks; pool sizes and cordons go through the
 * cloud config (machine-pool-routes.ts), backups and logs through the cluster's features
 * (cluster-feature-routes.ts).
 */

const lifecycleSchema = z.object({ lifecycleConfig: z.object({ pause: z.boolean() }) });
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

export function addDay2Routes(router: Router<ApiHandler>, state: SimState): void {
  const { liveCluster } = clusterLookups(state);

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
}
