import type { Fleet, SimCluster } from "./fleet.ts";
import type { ClusterCondition } from "./lifecycle.ts";
import { attachedProfileUid, profileVersion } from "./profile-versions.ts";

/**
 * Fleet records → the JSON shapes of the real API (definitions of openapi-subset.json named in
 * each function). Pure: the server passes in the condition derived from the clock.
 */

export const iso = (ms: number): string => new Date(ms).toISOString();

/** v1Event: one event of a cluster or an edge host (GET /v1/events/components/{kind}/{uid}) */
export function componentEvent(
  object: { kind: "spectrocluster" | "edgehost"; name: string; uid: string },
  event: { uid: string; at: number; reason: string; message: string; severity: string },
  source: { component: string; host: string },
) {
  const ref = { kind: object.kind, name: object.name, uid: object.uid };
  return {
    metadata: {
      uid: event.uid,
      name: `${object.name}.${event.uid.slice(-8)}`,
      creationTimestamp: iso(event.at),
      lastModifiedTimestamp: iso(event.at),
    },
    involvedObject: ref,
    relatedObject: { ...ref },
    reason: event.reason,
    message: event.message,
    severity: event.severity,
    source,
  };
}

export function objectMeta(cluster: SimCluster, now: number) {
  return {
    uid: cluster.uid,
    name: cluster.name,
    labels: { ...cluster.labels },
    // Palette's own annotations on every project cluster: what scope it lives in and which
    // project (clients fetching it by UID in the tenant scope learn its project from these)
    annotations: { ...cluster.annotations, scope: "project", projectUid: cluster.projectUid },
    creationTimestamp: iso(cluster.createdAt),
    lastModifiedTimestamp: iso(Math.max(cluster.createdAt, lastEventAt(cluster, now))),
    ...(cluster.deleteRequestedAt !== undefined
      ? { deletionTimestamp: iso(cluster.deleteRequestedAt) }
      : {}),
  };
}

function lastEventAt(cluster: SimCluster, now: number): number {
  let last = cluster.createdAt;
  for (const event of cluster.events) if (event.at <= now && event.at > last) last = event.at;
  return last;
}

/** Count of unhealthy machines: one worker when the cluster is unhealthy. */
export function unhealthyMachines(condition: ClusterCondition): number {
  return condition.state === "Running" && condition.health !== "Healthy" ? 1 : 0;
}

function machinePoolsMeta(cluster: SimCluster, condition: ClusterCondition) {
  let sick = unhealthyMachines(condition);
  return cluster.pools.map((pool) => {
    const poolSick = !pool.isControlPlane && sick > 0 ? sick : 0;
    sick -= poolSick;
    return {
      cloudType: cluster.provider,
      healthy: condition.state === "Running" ? pool.size - poolSick : 0,
      isControlPlane: pool.isControlPlane,
      labels: [pool.isControlPlane ? "control-plane" : "worker"],
      size: pool.size,
    };
  });
}

function healthStatus(cluster: SimCluster, condition: ClusterCondition, now: number) {
  const conditions = condition.reason
    ? [
        {
          type: "HealthCheck",
          message: condition.reason,
          relatedObject: { kind: "spectrocluster", name: cluster.name, uid: cluster.uid },
        },
      ]
    : [];
  return {
    state: condition.health,
    agentVersion: "4.8.2",
    lastHeartBeatTimestamp: iso(now),
    conditions,
  };
}

function profileMeta(fleet: Fleet, cluster: SimCluster, now: number, detailed = false) {
  const uid = attachedProfileUid(cluster, now, PROFILE_SETTLE_MS);
  const attached = profileVersion(fleet, uid);
  return {
    uid,
    name: attached?.profile.name ?? `${cluster.provider}-profile`,
    cloudType: cluster.provider,
    type: "cluster",
    version: 1,
    ...(detailed && attached ? { profileVersion: attached.version } : {}),
  };
}

/** how long Palette takes to apply a new profile version to a cluster */
export const PROFILE_SETTLE_MS = 4_000;

function accountMeta(fleet: Fleet, cluster: SimCluster) {
  const account = fleet.cloudAccounts.find((a) => a.uid === cluster.cloudAccountUid);
  return account ? { name: account.name, uid: account.uid } : undefined;
}

function projectMeta(fleet: Fleet, cluster: SimCluster) {
  const project = fleet.projects.find((p) => p.uid === cluster.projectUid);
  return { uid: cluster.projectUid, name: project?.name ?? "" };
}

function location(cluster: SimCluster) {
  return {
    regionName: cluster.region,
    regionCode: cluster.region,
    countryName: "",
    countryCode: "",
  };
}

function apiEndpoints(cluster: SimCluster, condition: ClusterCondition) {
  return condition.state === "Running" || condition.state === "Updating"
    ? [{ host: cluster.apiHost, port: cluster.provider === "virtual" ? 443 : 6443 }]
    : [];
}

function clusterConditions(condition: ClusterCondition, now: number) {
  const ready = condition.state === "Running" || condition.state === "Updating";
  return [
    {
      type: "Ready",
      status: ready ? "True" : "False",
      reason: ready ? "ClusterReady" : condition.state,
      message: ready ? "cluster is ready" : `cluster is ${condition.state}`,
      lastTransitionTime: iso(now),
    },
  ];
}

/** v1SpectroClusterSummary: one search result */
export function clusterSummary(
  fleet: Fleet,
  cluster: SimCluster,
  condition: ClusterCondition,
  now: number,
) {
  const account = accountMeta(fleet, cluster);
  return {
    metadata: objectMeta(cluster, now),
    specSummary: {
      ...(account ? { cloudAccountMeta: account } : {}),
      cloudConfig: {
        cloudType: cluster.provider,
        uid: cluster.cloudConfigUid,
        machinePools: machinePoolsMeta(cluster, condition),
      },
      projectMeta: projectMeta(fleet, cluster),
      clusterProfileTemplate: profileMeta(fleet, cluster, now),
    },
    status: {
      state: condition.state,
      ...(condition.health !== "Unknown" ? { health: healthStatus(cluster, condition, now) } : {}),
      location: location(cluster),
    },
  };
}

/** v1SpectroCluster: GET /v1/spectroclusters/{uid} (no health here, as in the real API) */
export function clusterObject(
  fleet: Fleet,
  cluster: SimCluster,
  condition: ClusterCondition,
  now: number,
) {
  const virtual =
    cluster.provider === "virtual"
      ? {
          virtual: {
            state: virtualState(cluster, condition.state, now),
            ...(cluster.hostClusterUid
              ? { hostCluster: { kind: "spectrocluster", uid: cluster.hostClusterUid } }
              : {}),
            ...(cluster.clusterGroupUid
              ? { clusterGroup: { kind: "clustergroup", uid: cluster.clusterGroupUid } }
              : {}),
          },
        }
      : {};
  return {
    apiVersion: "v1",
    kind: "SpectroCluster",
    metadata: objectMeta(cluster, now),
    spec: {
      cloudType: cluster.provider,
      cloudConfigRef: {
        kind: cluster.provider,
        name: `${cluster.name}-config`,
        uid: cluster.cloudConfigUid,
      },
      clusterType: "PureManage",
      clusterProfileTemplates: [profileMeta(fleet, cluster, now, true)],
      ...(cluster.pause
        ? { clusterConfig: { lifecycleConfig: { pause: cluster.pause.pause } } }
        : {}),
    },
    status: {
      state: condition.state,
      apiEndpoints: apiEndpoints(cluster, condition),
      conditions: clusterConditions(condition, now),
      location: { regionName: cluster.region, regionCode: cluster.region },
      ...virtual,
      ...(cluster.repave ? { repave: { state: cluster.repave.state } } : {}),
    },
  };
}

/** v1SpectroClusterUidSummary: GET /v1/dashboard/spectroclusters/{uid}/overview */
export function clusterOverview(
  fleet: Fleet,
  cluster: SimCluster,
  condition: ClusterCondition,
  now: number,
) {
  const account = accountMeta(fleet, cluster);
  const running = condition.state === "Running" || condition.state === "Updating";
  return {
    metadata: objectMeta(cluster, now),
    spec: {
      cloudConfig: {
        cloudType: cluster.provider,
        uid: cluster.cloudConfigUid,
        machinePools: machinePoolsMeta(cluster, condition),
      },
      ...(account ? { cloudaccount: account } : {}),
      clusterProfileTemplate: profileMeta(fleet, cluster, now),
    },
    status: {
      state: condition.state,
      ...(condition.health !== "Unknown" ? { health: healthStatus(cluster, condition, now) } : {}),
      apiEndpoints: apiEndpoints(cluster, condition),
      kubeMeta: {
        kubernetesVersion: cluster.kubernetesVersion,
        hasKubeConfig: running,
        hasKubeConfigClient: false,
        hasManifest: true,
      },
      conditions: clusterConditions(condition, now),
      location: location(cluster),
    },
  };
}

/** how long a virtual cluster takes to pause or resume */
const PAUSE_SETTLE_MS = 3_000;

/** a virtual cluster's own state: Paused after a pause settles, Resuming for a while after */
function virtualState(cluster: SimCluster, state: string, now: number): string {
  if (!cluster.pause) return state;
  const settling = now < cluster.pause.at + PAUSE_SETTLE_MS;
  if (cluster.pause.pause) return settling ? "Pausing" : "Paused";
  return settling ? "Resuming" : state;
}
