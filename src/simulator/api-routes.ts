import { z } from "zod";
import { CLOUD_ACCOUNT_KINDS, isProvider, type Provider } from "../palette/providers-list.ts";
import type { ApiHandler } from "./api-context.ts";
import { clusterLookups } from "./api-lookups.ts";
import { badRequest, notFound, ok, page } from "./api-replies.ts";
import type { TokenStore } from "./auth.ts";
import { addAuthRoutes } from "./auth-routes.ts";
import { addClusterReadRoutes } from "./cluster-read-routes.ts";
import { cloudConfig, machines } from "./details.ts";
import { hasControlPlanePool, type PoolSpec, type SimCluster } from "./fleet.ts";
import { ApiError, asRecord } from "./http-util.ts";
import type { UserDirectory } from "./identity.ts";
import { addIdentityRoutes } from "./identity-routes.ts";
import { paginate } from "./paging.ts";
import { attachedProfileUid, profileVersion, versionsOf } from "./profile-versions.ts";
import { addProjectRoutes } from "./project-routes.ts";
import { addRadarRoutes, type RadarBook, scheduledBackupStatuses } from "./radar-routes.ts";
import { iso, PROFILE_SETTLE_MS } from "./render.ts";
import { Router } from "./routes.ts";
import type { SimState } from "./state.ts";
import type { SimulatorCredentials } from "./types.ts";

/** Every Palette endpoint the bot uses, on the real paths with the real response shapes. */

export type { ApiContext, ApiHandler } from "./api-context.ts";

export interface ApiDeps {
  state: SimState;
  tokens: TokenStore;
  credentials: SimulatorCredentials;
  users: UserDirectory;
  /** the radar's facts (certificates, backup runs, profile updates): src/simulator/radar-routes.ts */
  radar: RadarBook;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function buildApiRouter(deps: ApiDeps): Router<ApiHandler> {
  const { state, tokens, credentials } = deps;
  const router = new Router<ApiHandler>();
  addIdentityRoutes(router, { state, users: deps.users, credentials });
  addRadarRoutes(router, { state, book: deps.radar });
  addAuthRoutes(router, { tokens, credentials });
  addClusterReadRoutes(router, state);
  addProjectRoutes(router, state);

  const { liveCluster, configCluster } = clusterLookups(state);

  // --- clusters
  router.add("DELETE", "/v1/spectroclusters/:uid", (ctx) => {
    const cluster = liveCluster(ctx.params.uid ?? "", ctx.projectUid);
    state.deleteCluster(cluster);
    return { status: 204 };
  });
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

  // --- nodes
  router.add("GET", "/v1/cloudconfigs/:kind/:configUid", (ctx) => {
    const cluster = configCluster(
      ctx.params.kind ?? "",
      ctx.params.configUid ?? "",
      ctx.projectUid,
    );
    return ok(cloudConfig(state.fleet, cluster, state.now()));
  });
  router.add("GET", "/v1/cloudconfigs/:kind/:configUid/machinePools/:pool/machines", (ctx) => {
    const cluster = configCluster(
      ctx.params.kind ?? "",
      ctx.params.configUid ?? "",
      ctx.projectUid,
    );
    const list = machines(
      cluster,
      state.condition(cluster),
      ctx.params.pool ?? "",
      state.now(),
      state.resizeMs,
    );
    if (!list) throw notFound(`Machine pool '${ctx.params.pool}'`);
    return ok(paginate(list, page(ctx.query)));
  });
  router.add(
    "PUT",
    "/v1/cloudconfigs/:kind/:configUid/machinePools/:pool/machines/:machineUid/maintenance",
    async (ctx) => {
      const cluster = configCluster(
        ctx.params.kind ?? "",
        ctx.params.configUid ?? "",
        ctx.projectUid,
      );
      const parsed = maintenanceSchema.safeParse(await ctx.body());
      if (!parsed.success)
        throw badRequest("body must be v1MachineMaintenance {action: cordon|uncordon}");
      const list = machines(cluster, state.condition(cluster), ctx.params.pool ?? "", state.now());
      if (!list) throw notFound(`Machine pool '${ctx.params.pool}'`);
      const machineUid = ctx.params.machineUid ?? "";
      if (!list.some((machine) => machine.metadata.uid === machineUid)) {
        throw notFound(`Machine '${machineUid}'`);
      }
      cluster.maintenance ??= new Map();
      cluster.maintenance.set(machineUid, { action: parsed.data.action, at: state.now() });
      return { status: 204 };
    },
  );
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
  router.add("PUT", "/v1/cloudconfigs/:kind/:configUid/machinePools/:pool", async (ctx) => {
    const cluster = configCluster(
      ctx.params.kind ?? "",
      ctx.params.configUid ?? "",
      ctx.projectUid,
    );
    const condition = state.condition(cluster);
    if (condition.state !== "Running") {
      throw new ApiError(
        409,
        "ClusterNotRunning",
        `cluster '${cluster.name}' is ${condition.state}; its machine pools can change when it is Running`,
      );
    }
    const body = validatePoolUpdate(await ctx.body());
    const poolName = ctx.params.pool ?? "";
    if (body.poolConfig.name !== poolName) {
      throw badRequest(`poolConfig.name '${body.poolConfig.name}' is not the pool '${poolName}'`);
    }
    if (!state.resizePool(cluster, poolName, body.poolConfig.size)) {
      throw notFound(`Machine pool '${poolName}'`);
    }
    return { status: 204 };
  });

  // --- launch inputs
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
  router.add("POST", "/v1/dashboard/edgehosts/search", async (ctx) => {
    await ctx.body();
    const hosts = state.fleet.edgeHosts.filter(
      (host) => !ctx.projectUid || host.projectUid === ctx.projectUid,
    );
    const items = hosts.map((host) => {
      const cluster = host.inUseClusterUid ? state.cluster(host.inUseClusterUid) : undefined;
      const project = state.project(host.projectUid);
      return {
        metadata: { uid: host.uid, name: host.name, labels: {} },
        spec: {
          type: "edge-native",
          host: { hostAddress: host.address, macAddress: host.macAddress },
          projectMeta: { uid: host.projectUid, name: project?.name ?? "" },
        },
        status: {
          state: cluster ? "in-use" : "ready",
          health: { state: host.health },
          inUseClusters: cluster ? [{ name: cluster.name, uid: cluster.uid }] : [],
        },
      };
    });
    return ok(paginate(items, page(ctx.query)));
  });

  return router;
}

interface CreateInput {
  name: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  pools?: PoolSpec[];
  cloudAccountUid?: string;
  profileUid?: string;
}

const stringMap = z.record(z.string(), z.string());

/** Light structural validation of a create body, with messages that name the field. */
export function validateCreate(provider: Provider, raw: unknown): CreateInput {
  const body = asRecord(raw);
  if (!body) throw badRequest("body must be a JSON object with metadata and spec");
  const metadata = asRecord(body.metadata);
  if (!metadata) throw badRequest("metadata is required");
  const name = metadata.name;
  if (typeof name !== "string" || name.length === 0) throw badRequest("metadata.name is required");
  if (name.length > 63 || !DNS_LABEL.test(name)) {
    throw badRequest(
      `metadata.name '${name}' must be a DNS label: lowercase letters, digits and '-', at most 63`,
    );
  }
  const labels = stringMap.safeParse(metadata.labels ?? {});
  if (!labels.success) throw badRequest("metadata.labels must map strings to strings");
  const annotations = stringMap.safeParse(metadata.annotations ?? {});
  if (!annotations.success) throw badRequest("metadata.annotations must map strings to strings");
  const spec = asRecord(body.spec);
  if (!spec) throw badRequest("spec is required");
  const out: CreateInput = { name, labels: labels.data, annotations: annotations.data };
  if (typeof spec.cloudAccountUid === "string" && spec.cloudAccountUid) {
    out.cloudAccountUid = spec.cloudAccountUid;
  }
  if (Array.isArray(spec.profiles)) {
    const first = asRecord(spec.profiles[0]);
    if (first && typeof first.uid === "string") out.profileUid = first.uid;
  }
  const poolsRaw = spec.machinepoolconfig;
  if (!Array.isArray(poolsRaw) || poolsRaw.length === 0) {
    throw badRequest("spec.machinepoolconfig must be a non-empty array");
  }
  const pools: PoolSpec[] = [];
  for (const [index, item] of poolsRaw.entries()) {
    const entry = asRecord(item);
    if (!entry) throw badRequest(`spec.machinepoolconfig[${index}] must be an object`);
    const poolConfig = asRecord(entry.poolConfig);
    const cloud = asRecord(entry.cloudConfig);
    if (provider !== "virtual" && !poolConfig) {
      throw badRequest(`spec.machinepoolconfig[${index}].poolConfig is required`);
    }
    const isControlPlane = poolConfig?.isControlPlane === true;
    const size = poolConfig?.size ?? 1;
    if (typeof size !== "number" || !Number.isInteger(size) || size < 0) {
      throw badRequest(`spec.machinepoolconfig[${index}].poolConfig.size must be an integer >= 0`);
    }
    const poolName =
      typeof poolConfig?.name === "string" && poolConfig.name
        ? poolConfig.name
        : isControlPlane
          ? "cp-pool"
          : "worker-pool";
    if (pools.some((pool) => pool.name === poolName)) {
      throw badRequest(`machine pool name '${poolName}' is used twice`);
    }
    const instanceType =
      typeof cloud?.instanceType === "string" ? cloud.instanceType : `${provider}-default`;
    pools.push({ name: poolName, size, isControlPlane, instanceType });
  }
  if (hasControlPlanePool(provider) && !pools.some((pool) => pool.isControlPlane)) {
    throw badRequest("a control-plane pool (poolConfig.isControlPlane: true) is required");
  }
  out.pools = pools;
  return out;
}

const poolUpdateSchema = z.object({
  cloudConfig: z.record(z.string(), z.unknown()),
  poolConfig: z.object({
    name: z.string().min(1),
    size: z.number().int().min(0).max(1000),
    labels: z.array(z.string()),
    minSize: z.number().int().min(0).optional(),
    maxSize: z.number().int().min(0).optional(),
  }),
});

/** v1<Cloud>MachinePoolConfigEntity: cloudConfig required, poolConfig with name, size, labels */
function validatePoolUpdate(raw: unknown): z.infer<typeof poolUpdateSchema> {
  const parsed = poolUpdateSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badRequest(
      `body does not match the machine pool entity: ${issue?.path.join(".") || "body"} ${issue?.message ?? ""}`.trim(),
    );
  }
  const { minSize, maxSize, size } = parsed.data.poolConfig;
  if (minSize !== undefined && maxSize !== undefined && (size < minSize || size > maxSize)) {
    throw badRequest(`poolConfig.size ${size} is outside minSize ${minSize} … maxSize ${maxSize}`);
  }
  return parsed.data;
}

const maintenanceSchema = z.object({ action: z.enum(["cordon", "uncordon"]) });
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
