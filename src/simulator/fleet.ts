import {
  CLOUD_ACCOUNT_KINDS,
  type CloudAccountKind,
  PROVIDERS,
  type Provider,
} from "../palette/providers-list.ts";
import { createRng, hashString, type Rng } from "./prng.ts";

/**
 * The simulator's world: projects, clusters on all 11 providers, cloud accounts, profiles,
 * cluster groups and edge hosts, generated from a seed. Only the cheap, summary-level facts are
 * generated up front; machines and workloads are derived lazily per cluster (details.ts) from a
 * per-cluster seed, so 10,000 clusters generate in milliseconds.
 */

export interface PoolSpec {
  name: string;
  size: number;
  isControlPlane: boolean;
  instanceType: string;
  /** the last resize: machines added after it provision, machines removed drain, for a while */
  resize?: { from: number; at: number };
}

export interface SimEvent {
  uid: string;
  at: number;
  reason: string;
  message: string;
  severity: string;
}

export interface SimCluster {
  uid: string;
  name: string;
  projectUid: string;
  provider: Provider;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  createdAt: number;
  cloudConfigUid: string;
  cloudAccountUid?: string;
  profileUid: string;
  kubernetesVersion: string;
  region: string;
  pools: PoolSpec[];
  apiHost: string;
  /** seeded clusters keep their seeded state; API-created ones follow the lifecycle clock */
  origin: "seed" | "api";
  seedState: string;
  seedHealth: string;
  seedReason?: string;
  /** when the seeded problem started (for its event) */
  seedReasonAt?: number;
  deleteRequestedAt?: number;
  /** day-2: machines put in or out of maintenance, by machine uid */
  maintenance?: Map<string, { action: "cordon" | "uncordon"; at: number }>;
  /** day-2: a repave Palette holds for approval, and what became of it */
  repave?: { state: "Pending" | "Approved" | "Reverted"; reasons: string[]; at: number };
  /** day-2: the backup policy's location, and the on-demand backups asked for */
  backup?: {
    location?: { uid: string; name: string };
    requests: Array<{ uid: string; name: string; at: number }>;
  };
  /** day-2: a profile version asked for (PATCH …/profiles), in force once Palette applied it */
  profileUpgrade?: { to: string; at: number };
  /** day-2: log fetches asked for (POST …/features/logFetcher) */
  logRequests?: Array<{ uid: string; at: number; lines: number }>;
  /** day-2: a virtual cluster's lifecycle pause (PATCH …/clusterConfig/lifecycleConfig) */
  pause?: { pause: boolean; at: number };
  stateOverride?: string;
  healthOverride?: string;
  healthReason?: string;
  /** events added after generation (control, lifecycle, animation); seeded ones are derived */
  events: SimEvent[];
  detailSeed: number;
  hostClusterUid?: string;
  clusterGroupUid?: string;
  edgeHostUids?: string[];
}

export interface SimProject {
  uid: string;
  name: string;
  createdAt: number;
}

export interface SimCloudAccount {
  uid: string;
  name: string;
  kind: CloudAccountKind;
  /** undefined: a tenant-scope account, visible from every project */
  projectUid?: string;
  createdAt: number;
}

export interface SimProfile {
  uid: string;
  name: string;
  cloudType: string;
  version: string;
}

export interface SimClusterGroup {
  uid: string;
  name: string;
  scope: "tenant" | "system";
  hostClusterUids: string[];
}

export interface SimEdgeHost {
  uid: string;
  name: string;
  projectUid: string;
  address: string;
  macAddress: string;
  health: "healthy" | "unhealthy";
  inUseClusterUid?: string;
}

export interface Fleet {
  seed: number;
  projects: SimProject[];
  clusters: SimCluster[];
  byUid: Map<string, SimCluster>;
  cloudAccounts: SimCloudAccount[];
  profiles: SimProfile[];
  clusterGroups: SimClusterGroup[];
  edgeHosts: SimEdgeHost[];
  /** for everything added after generation (new clusters, events, tokens) */
  rng: Rng;
}

export interface FleetOptions {
  clusters: number;
  projects: number;
  seed: number;
  now: number;
  /**
   * Fraction (0..1) of clusters seeded other than Running and Healthy (unhealthy, provisioning,
   * pending, deleting in fixed proportions); default the fleet's usual mix (about 12.5 %).
   */
  unhealthy?: number;
  /**
   * Soft-deleted clusters seeded besides `clusters`: Palette keeps a deleted cluster's record
   * (state Deleted, deletionTimestamp set). The first is a twin of a live cluster, with its
   * name. Default none.
   */
  softDeleted?: number;
}

const DAY = 24 * 60 * 60 * 1000;
const PROJECT_NAMES = ["Default", "platform", "payments", "data", "edge-retail", "ml", "security"];
const APPS = [
  "checkout",
  "ledger",
  "search",
  "ingest",
  "gateway",
  "billing",
  "catalog",
  "orders",
  "analytics",
  "identity",
  "media",
  "iot",
];
const ENVS = ["dev", "staging", "prod"] as const;
const TEAMS = ["core", "payments", "data", "edge", "platform"];
const K8S_VERSIONS = ["1.29.9", "1.30.6", "1.31.2", "1.32.1"];
export const UNHEALTHY_REASONS = [
  "Node {worker} NotReady: kubelet stopped posting node status",
  "Pod {app}/api in CrashLoopBackOff: back-off 5m0s restarting failed container",
  "etcd member on {cp} unreachable: context deadline exceeded",
  "Cluster agent heartbeat missed for 5m0s",
  "Node {worker} has DiskPressure: ephemeral storage usage 93%",
];

const REGIONS: Record<Provider, readonly string[]> = {
  aws: ["us-east-1", "us-west-2", "eu-west-1"],
  eks: ["us-east-1", "us-west-2", "eu-central-1"],
  azure: ["eastus", "westeurope", "centralus"],
  aks: ["eastus2", "northeurope"],
  gcp: ["us-central1", "europe-west4"],
  gke: ["us-east1", "asia-southeast1"],
  maas: ["dc-austin", "dc-frankfurt"],
  vsphere: ["Datacenter-SJC", "Datacenter-AMS"],
  openstack: ["RegionOne", "RegionTwo"],
  "edge-native": ["store-0142", "store-0077", "plant-berlin"],
  virtual: ["host-cluster"],
};

const INSTANCE_TYPES: Record<Provider, readonly string[]> = {
  aws: ["m5.xlarge", "m6i.2xlarge", "c5.xlarge"],
  eks: ["t3.large", "m5.large", "m6i.xlarge"],
  azure: ["Standard_D4s_v3", "Standard_D8s_v5"],
  aks: ["Standard_D2s_v3", "Standard_D4s_v5"],
  gcp: ["n2-standard-4", "e2-standard-8"],
  gke: ["e2-standard-4", "n2-standard-2"],
  maas: ["maas-4cpu-16gb", "maas-8cpu-32gb"],
  vsphere: ["4cpu-8192MiB-60GiB", "8cpu-16384MiB-80GiB"],
  openstack: ["m1.large", "m1.xlarge"],
  "edge-native": ["edge-appliance"],
  virtual: ["vcluster-4cpu-8GiB"],
};

/** Which cloud-account kind a provider draws its credentials from; none for edge and virtual. */
export function accountKindOf(provider: Provider): CloudAccountKind | undefined {
  switch (provider) {
    case "aws":
    case "eks":
      return "aws";
    case "azure":
    case "aks":
      return "azure";
    case "gcp":
    case "gke":
      return "gcp";
    case "maas":
    case "vsphere":
    case "openstack":
      return provider;
    default:
      return undefined;
  }
}

/** Managed Kubernetes (eks/aks/gke) and virtual clusters have no control-plane pool of their own. */
export function hasControlPlanePool(provider: Provider): boolean {
  return !["eks", "aks", "gke", "virtual"].includes(provider);
}

export function uid(rng: Rng): string {
  return rng.hex(24);
}

export function generateFleet(options: FleetOptions): Fleet {
  const rng = createRng(options.seed);
  const { now } = options;
  const projectCount = Math.max(1, options.projects);
  const projects: SimProject[] = [];
  for (let i = 0; i < projectCount; i++) {
    const base = PROJECT_NAMES[i % PROJECT_NAMES.length] ?? "project";
    const round = Math.floor(i / PROJECT_NAMES.length);
    projects.push({
      uid: uid(rng),
      name: round === 0 ? base : `${base}-${round + 1}`,
      createdAt: now - rng.int(200, 400) * DAY,
    });
  }

  const profiles: SimProfile[] = [];
  for (const provider of PROVIDERS) {
    for (const flavour of ["base", "hardened"]) {
      profiles.push({
        uid: uid(rng),
        name: `${provider}-${flavour}-k8s`,
        cloudType: provider,
        version: flavour === "base" ? "1.0.0" : "2.1.0",
      });
    }
  }

  const cloudAccounts: SimCloudAccount[] = [];
  for (const kind of CLOUD_ACCOUNT_KINDS) {
    cloudAccounts.push({
      uid: uid(rng),
      name: `${kind}-shared`,
      kind,
      createdAt: now - rng.int(100, 300) * DAY,
    });
    for (const project of projects) {
      cloudAccounts.push({
        uid: uid(rng),
        name: `${kind}-${project.name.toLowerCase()}`,
        kind,
        projectUid: project.uid,
        createdAt: now - rng.int(30, 200) * DAY,
      });
    }
  }

  const fleet: Fleet = {
    seed: options.seed,
    projects,
    clusters: [],
    byUid: new Map(),
    cloudAccounts,
    profiles,
    clusterGroups: [],
    edgeHosts: [],
    rng,
  };

  const namesPerProject = new Map<string, Set<string>>();
  // the next suffix per project and base name: a big fleet repeats each base name many times
  const nextSuffix = new Map<string, number>();
  for (let i = 0; i < options.clusters; i++) {
    const project = projects[i % projects.length] as SimProject;
    const provider = PROVIDERS[i % PROVIDERS.length] as Provider;
    const app = rng.pick(APPS);
    const env = rng.pick(ENVS);
    const taken = namesPerProject.get(project.uid) ?? new Set<string>();
    namesPerProject.set(project.uid, taken);
    const base = `${app}-${env}-${provider}`;
    const key = `${project.uid}/${base}`;
    let n = nextSuffix.get(key) ?? 1;
    let name = n === 1 ? base : `${base}-${n}`;
    while (taken.has(name)) name = `${base}-${++n}`;
    nextSuffix.set(key, n + 1);
    taken.add(name);
    const labels: Record<string, string> = { [env]: "spectro__tag", team: rng.pick(TEAMS) };
    if (rng.chance(0.15)) labels.gpu = "spectro__tag";
    const { state, health } = seededCondition(i, rng, options.unhealthy);
    const cluster = buildCluster(fleet, {
      name,
      projectUid: project.uid,
      provider,
      labels,
      createdAt: now - rng.int(1, 180) * DAY - rng.int(0, DAY),
      origin: "seed",
    });
    cluster.seedState = state;
    cluster.seedHealth = health;
    if (health === "UnHealthy") {
      cluster.seedReason = unhealthyReason(cluster, rng);
      cluster.seedReasonAt = now - rng.int(5, 180) * 60_000;
    }
    addCluster(fleet, cluster);
  }

  linkVirtualAndEdge(fleet);
  // after everything else, so a fleet's live clusters do not depend on how many are deleted
  seedSoftDeleted(fleet, options.softDeleted ?? 0, now);
  return fleet;
}

/** The usual share of clusters that are not Running and Healthy. */
const USUAL_UNHEALTHY = 0.125;

/**
 * Most clusters run healthy; a few are unhealthy or mid-lifecycle, in fixed proportions of
 * `unhealthy`. With the usual mix, clusters 4 and 7 are always unhealthy and provisioning.
 */
function seededCondition(
  index: number,
  rng: Rng,
  unhealthy: number | undefined,
): { state: string; health: string } {
  if (unhealthy === undefined) {
    if (index === 4) return { state: "Running", health: "UnHealthy" };
    if (index === 7) return { state: "Provisioning", health: "Unknown" };
  }
  const scale = (unhealthy ?? USUAL_UNHEALTHY) / USUAL_UNHEALTHY;
  const roll = rng.next();
  if (roll < 0.07 * scale) return { state: "Running", health: "UnHealthy" };
  if (roll < 0.1 * scale) return { state: "Provisioning", health: "Unknown" };
  if (roll < 0.115 * scale) return { state: "Pending", health: "Unknown" };
  if (roll < 0.125 * scale) return { state: "Deleting", health: "Unknown" };
  return { state: "Running", health: "Healthy" };
}

/** Providers a soft-deleted cluster can have without cluster-group or edge-host links. */
const DELETED_PROVIDERS: readonly Provider[] = PROVIDERS.filter(
  (provider) => provider !== "virtual" && provider !== "edge-native",
);

function seedSoftDeleted(fleet: Fleet, count: number, now: number): void {
  if (count <= 0) return;
  const { rng } = fleet;
  const live = fleet.clusters.filter(
    (cluster) =>
      cluster.seedState === "Running" &&
      cluster.seedHealth === "Healthy" &&
      DELETED_PROVIDERS.includes(cluster.provider),
  );
  for (let i = 0; i < count; i++) {
    const twin = i === 0 ? live[0] : undefined;
    const project = fleet.projects[i % fleet.projects.length] as SimProject;
    const provider =
      twin?.provider ?? (DELETED_PROVIDERS[i % DELETED_PROVIDERS.length] as Provider);
    const deletedAt = now - rng.int(1, 60) * DAY;
    const cluster = buildCluster(fleet, {
      name: twin?.name ?? `retired-${rng.pick(APPS)}-${provider}-${i}`,
      projectUid: twin?.projectUid ?? project.uid,
      provider,
      labels: twin
        ? { ...twin.labels }
        : { [rng.pick(ENVS)]: "spectro__tag", team: rng.pick(TEAMS) },
      createdAt: deletedAt - rng.int(10, 300) * DAY,
      origin: "seed",
    });
    cluster.deleteRequestedAt = deletedAt;
    addCluster(fleet, cluster);
  }
}

export function unhealthyReason(cluster: SimCluster, rng: Rng): string {
  const worker = cluster.pools.find((pool) => !pool.isControlPlane) ?? cluster.pools[0];
  const cp = cluster.pools.find((pool) => pool.isControlPlane) ?? worker;
  const app = cluster.name.split("-")[0] ?? "default";
  return rng
    .pick(UNHEALTHY_REASONS)
    .replace("{worker}", `${cluster.name}-${worker?.name ?? "worker-pool"}-0`)
    .replace("{cp}", `${cluster.name}-${cp?.name ?? "cp-pool"}-0`)
    .replace("{app}", app);
}

export interface NewClusterInput {
  name: string;
  projectUid: string;
  provider: Provider;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  createdAt: number;
  origin: "seed" | "api";
  pools?: PoolSpec[];
  cloudAccountUid?: string;
  profileUid?: string;
  region?: string;
}

/** Builds (does not register) a cluster with sensible pools, account and profile. */
export function buildCluster(fleet: Fleet, input: NewClusterInput): SimCluster {
  const { rng } = fleet;
  const provider = input.provider;
  const kind = accountKindOf(provider);
  const account =
    input.cloudAccountUid ??
    (kind
      ? fleet.cloudAccounts.find((a) => a.kind === kind && a.projectUid === input.projectUid)?.uid
      : undefined);
  const profile =
    input.profileUid ?? fleet.profiles.find((p) => p.cloudType === provider)?.uid ?? "";
  const instanceType = rng.pick(INSTANCE_TYPES[provider]);
  const pools: PoolSpec[] = input.pools ?? [];
  if (!input.pools) {
    if (hasControlPlanePool(provider)) {
      pools.push({
        name: "cp-pool",
        size: provider === "edge-native" ? 1 : rng.pick([1, 3]),
        isControlPlane: true,
        instanceType,
      });
    }
    pools.push({
      name: "worker-pool",
      size: provider === "virtual" ? 1 : rng.int(1, 5),
      isControlPlane: false,
      instanceType,
    });
  }
  const cluster: SimCluster = {
    uid: uid(rng),
    name: input.name,
    projectUid: input.projectUid,
    provider,
    labels: { ...(input.labels ?? {}) },
    annotations: { ...(input.annotations ?? {}) },
    createdAt: input.createdAt,
    cloudConfigUid: uid(rng),
    profileUid: profile,
    kubernetesVersion: rng.pick(K8S_VERSIONS),
    region: input.region ?? rng.pick(REGIONS[provider]),
    pools,
    apiHost: "",
    origin: input.origin,
    seedState: "Running",
    seedHealth: "Healthy",
    events: [],
    detailSeed: 0,
  };
  if (account) cluster.cloudAccountUid = account;
  cluster.detailSeed = hashString(cluster.uid, fleet.seed);
  cluster.apiHost = apiHostOf(cluster);
  return cluster;
}

function apiHostOf(cluster: SimCluster): string {
  const short = cluster.uid.slice(0, 8);
  switch (cluster.provider) {
    case "aws":
    case "eks":
      return `${cluster.name}-${short}.elb.${cluster.region}.amazonaws.com`;
    case "azure":
    case "aks":
      return `${cluster.name}-${short}.${cluster.region}.cloudapp.azure.com`;
    case "gcp":
    case "gke":
      return `34.${cluster.detailSeed % 250}.${(cluster.detailSeed >> 8) % 250}.${(cluster.detailSeed >> 16) % 250}`;
    default:
      return `10.${cluster.detailSeed % 250}.${(cluster.detailSeed >> 8) % 250}.10`;
  }
}

export function addCluster(fleet: Fleet, cluster: SimCluster): void {
  fleet.clusters.push(cluster);
  fleet.byUid.set(cluster.uid, cluster);
}

/** Cluster groups host the virtual clusters; edge hosts carry the edge-native clusters. */
function linkVirtualAndEdge(fleet: Fleet): void {
  const { rng } = fleet;
  const hosts = fleet.clusters.filter(
    (c) => ["eks", "aks", "gke"].includes(c.provider) && c.seedState === "Running",
  );
  const chosen = hosts.slice(0, 3);
  fleet.clusterGroups.push({
    uid: uid(rng),
    name: "beehive",
    scope: "system",
    hostClusterUids: [],
  });
  fleet.clusterGroups.push({
    uid: uid(rng),
    name: "platform-shared",
    scope: "tenant",
    hostClusterUids: chosen.map((c) => c.uid),
  });
  const group = fleet.clusterGroups[1] as SimClusterGroup;
  for (const cluster of fleet.clusters) {
    if (cluster.provider === "virtual") {
      cluster.clusterGroupUid = group.uid;
      cluster.hostClusterUid = chosen.length
        ? (chosen[cluster.detailSeed % chosen.length] as SimCluster).uid
        : undefined;
    }
  }
  for (const project of fleet.projects) {
    for (let i = 0; i < 4; i++) {
      fleet.edgeHosts.push(newEdgeHost(fleet, project.uid, i));
    }
  }
  for (const cluster of fleet.clusters) {
    if (cluster.provider !== "edge-native") continue;
    const host = newEdgeHost(fleet, cluster.projectUid, fleet.edgeHosts.length);
    host.inUseClusterUid = cluster.uid;
    host.health = cluster.seedHealth === "UnHealthy" ? "unhealthy" : "healthy";
    fleet.edgeHosts.push(host);
    cluster.edgeHostUids = [host.uid];
  }
}

function newEdgeHost(fleet: Fleet, projectUid: string, index: number): SimEdgeHost {
  const { rng } = fleet;
  const mac = Array.from({ length: 6 }, () => rng.hex(2)).join(":");
  return {
    uid: `edge-${rng.hex(16)}`,
    name: `edge-host-${String(index).padStart(4, "0")}`,
    projectUid,
    address: `192.168.${rng.int(1, 254)}.${rng.int(2, 254)}`,
    macAddress: mac,
    health: rng.chance(0.1) ? "unhealthy" : "healthy",
  };
}
