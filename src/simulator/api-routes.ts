import { z } from "zod";
import { CLOUD_ACCOUNT_KINDS, isProvider, type Provider } from "../palette/providers-list.ts";
import type { ApiContext, ApiHandler } from "./api-context.ts";
import type { TokenStore } from "./auth.ts";
import { cloudConfig, kubeconfig, machines, workloads } from "./details.ts";
import { hasControlPlanePool, type PoolSpec, type SimCluster } from "./fleet.ts";
import { ApiError, asRecord, type Reply } from "./http-util.ts";
import type { UserDirectory } from "./identity.ts";
import { addIdentityRoutes } from "./identity-routes.ts";
import { clusterEvents } from "./lifecycle.ts";
import { BadPageRequest, pageRequest, paginate } from "./paging.ts";
import { attachedProfileUid, profileVersion, versionsOf } from "./profile-versions.ts";
import { addRadarRoutes, type RadarBook, scheduledBackupStatuses } from "./radar-routes.ts";
import { sees } from "./rbac.ts";
import {
  clusterObject,
  clusterOverview,
  clusterSummary,
  iso,
  PROFILE_SETTLE_MS,
} from "./render.ts";
import { Router } from "./routes.ts";
import {
  matchesSearch,
  type Searchable,
  type SearchBody,
  searchBodySchema,
  sortSearchables,
  UnsupportedFilter,
} from "./search.ts";
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

const ok = (body: unknown, status = 200): Reply => ({ status, body });

function notFound(what: string): ApiError {
  return new ApiError(404, "ResourceNotFound", `${what} not found`);
}

function badRequest(message: string, code = "InvalidRequest"): ApiError {
  return new ApiError(400, code, message);
}

function page(query: URLSearchParams) {
  try {
    return pageRequest(query);
  } catch (error) {
    if (error instanceof BadPageRequest) throw badRequest(error.message, "InvalidPageRequest");
    throw error;
  }
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

const authBodySchema = z.object({
  emailId: z.string().min(1),
  org: z.string().optional(),
  password: z.string().min(1),
});

const workloadsBodySchema = z
  .object({
    filter: z
      .object({ namespaces: z.array(z.string()).nullish() })
      .passthrough()
      .nullish(),
  })
  .passthrough()
  .nullish();

export function buildApiRouter(deps: ApiDeps): Router<ApiHandler> {
  const { state, tokens, credentials } = deps;
  const router = new Router<ApiHandler>();
  addIdentityRoutes(router, { state, users: deps.users, credentials });
  addRadarRoutes(router, { state, book: deps.radar });

  /** A cluster visible in the scope; Deleted ones stay readable by uid, as in Palette. */
  const scopedCluster = (uid: string, projectUid: string | undefined): SimCluster => {
    const cluster = state.cluster(uid);
    if (!cluster || (projectUid && cluster.projectUid !== projectUid)) {
      throw notFound(`Cluster '${uid}'`);
    }
    return cluster;
  };
  const liveCluster = (uid: string, projectUid: string | undefined): SimCluster => {
    const cluster = scopedCluster(uid, projectUid);
    if (state.condition(cluster).state === "Deleted") throw notFound(`Cluster '${uid}'`);
    return cluster;
  };

  // --- auth
  router.add("POST", "/v1/auth/authenticate", async (ctx) => {
    const parsed = authBodySchema.safeParse(await ctx.body());
    if (!parsed.success) throw badRequest("emailId and password are required");
    const { emailId, org, password } = parsed.data;
    const orgMatches = org === undefined || org === "" || org === credentials.org;
    if (emailId !== credentials.email || password !== credentials.password || !orgMatches) {
      throw new ApiError(401, "InvalidCredentials", "email, organization or password is wrong");
    }
    return ok({ Authorization: tokens.issue(emailId), isMfa: false });
  });
  router.add("GET", "/v1/auth/refresh/:token", (ctx) => {
    const token = ctx.params.token ?? "";
    if (!tokens.isLive(token)) {
      throw new ApiError(401, "TokenExpired", "the token to refresh is expired or unknown");
    }
    return ok({ Authorization: tokens.issue(credentials.email), isMfa: false });
  });

  // --- clusters
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
  router.add("DELETE", "/v1/spectroclusters/:uid", (ctx) => {
    const cluster = liveCluster(ctx.params.uid ?? "", ctx.projectUid);
    state.deleteCluster(cluster);
    return { status: 204 };
  });
  router.add("GET", "/v1/dashboard/spectroclusters/:uid/overview", (ctx) => {
    const cluster = liveCluster(ctx.params.uid ?? "", ctx.projectUid);
    return ok(clusterOverview(state.fleet, cluster, state.condition(cluster), state.now()));
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
  const configCluster = (kind: string, configUid: string, projectUid: string | undefined) => {
    const cluster = state.clusterByConfig(configUid);
    if (
      !cluster ||
      cluster.provider !== kind ||
      (projectUid && cluster.projectUid !== projectUid)
    ) {
      throw notFound(`Cloud config '${kind}/${configUid}'`);
    }
    return cluster;
  };
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

  // --- workloads
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

  // --- alerts and events
  router.add("GET", "/v1/projects/alerts", () =>
    ok({
      components: [
        {
          name: "ClusterHealth",
          description: "Raised when a cluster's health leaves Healthy",
          supportedChannels: ["email", "app", "http"],
        },
        {
          name: "ClusterUpdates",
          description: "Raised when cluster updates are available or applied",
          supportedChannels: ["email", "app"],
        },
      ],
    }),
  );
  router.add("GET", "/v1/events/components/:objectKind/:objectUid", (ctx) => {
    if (ctx.params.objectKind !== "spectrocluster") {
      throw notFound(`Events of kind '${ctx.params.objectKind}'`);
    }
    const cluster = scopedCluster(ctx.params.objectUid ?? "", ctx.projectUid);
    const now = state.now();
    const events = clusterEvents(cluster, now, state.times).map((event) => ({
      metadata: {
        uid: event.uid,
        name: `${cluster.name}.${event.uid.slice(-8)}`,
        creationTimestamp: iso(event.at),
        lastModifiedTimestamp: iso(event.at),
      },
      involvedObject: { kind: "spectrocluster", name: cluster.name, uid: cluster.uid },
      relatedObject: { kind: "spectrocluster", name: cluster.name, uid: cluster.uid },
      reason: event.reason,
      message: event.message,
      severity: event.severity,
      source: { component: "palette-sim", host: "hubble" },
    }));
    return ok(paginate(events, page(ctx.query)));
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
  router.add("POST", "/v1/dashboard/projects", async (ctx) => {
    await ctx.body();
    const items = state.fleet.projects
      .filter((project) => sees(ctx.caller, project.uid))
      .map((project) => {
        let healthy = 0;
        let unhealthy = 0;
        let running = 0;
        let errored = 0;
        for (const cluster of state.fleet.clusters) {
          if (cluster.projectUid !== project.uid) continue;
          const condition = state.condition(cluster);
          if (condition.state === "Running") running += 1;
          if (condition.state === "Failed") errored += 1;
          if (condition.health === "Healthy") healthy += 1;
          else if (condition.health === "UnHealthy") unhealthy += 1;
        }
        return {
          metadata: {
            uid: project.uid,
            name: project.name,
            creationTimestamp: iso(project.createdAt),
            labels: {},
          },
          status: {
            clustersHealth: { healthy, unhealthy, running, errored },
            status: { isDisabled: false },
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
