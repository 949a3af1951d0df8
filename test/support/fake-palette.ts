import type { AccessPolicy } from "../../src/access/types.ts";
import { ManualClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import type { ClusterSearch, Page, PaletteApi, Scope } from "../../src/palette/api.ts";
import { PaletteError } from "../../src/palette/errors.ts";
import type { AuditQuery, PaletteAudit } from "../../src/palette/history.ts";
import type {
  BackupHistory,
  CertificateExpiry,
  PendingRepave,
  ProfileUpdate,
} from "../../src/palette/radar-reads.ts";
import type {
  AlertComponent,
  CloudConfig,
  Cluster,
  ClusterOverview,
  ClusterSummary,
  Machine,
  PaletteEvent,
  Workloads,
} from "../../src/palette/schemas.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import type { CommandContext } from "../../src/verb-kit/types.ts";

/**
 * A small in-memory Palette for handler tests: a few clusters with pools, machines, workloads
 * and kubeconfigs; every call recorded; any method can be made to fail, always or on a condition;
 * searches can be held open (`gate`). Built on an array, or on a function that reads the test's
 * own fleet at each call, so a test can change clusters between poll cycles.
 */

export interface FakeMachine {
  name: string;
  state: string;
  health: string;
  address?: string;
}

export interface FakeCluster {
  uid: string;
  name: string;
  projectUid?: string;
  projectName?: string;
  state: string;
  health?: string;
  healthReasons?: string[];
  /** health conditions as Palette reports them (type and message), besides `healthReasons` */
  healthConditions?: Array<{ type: string; message: string }>;
  provider: string;
  labels?: Record<string, string>;
  kubernetesVersion?: string;
  createdAt?: string;
  /** undefined: no cloud config (virtual) */
  pools?: Array<{ name: string; controlPlane?: boolean; size?: number; machines: FakeMachine[] }>;
  workloads?: Workloads;
  kubeconfig?: string;
  /** `metadata.deletionTimestamp` of GET by UID: Palette marked the cluster for deletion */
  deletionTimestamp?: string;
}

export interface FakeCall {
  method: keyof PaletteApi;
  args: unknown[];
}

/** An error to throw for a call, or a function of the call's arguments (undefined = no failure). */
export type FakeFailure = unknown | ((args: unknown[]) => unknown);

export class FakePalette implements PaletteApi {
  readonly calls: FakeCall[] = [];
  private readonly failures = new Map<string, FakeFailure>();
  /** while set, searches wait for it (a poll held open mid-cycle) */
  gate: Promise<void> | undefined;
  /** told of every call as it is made (before any failure), for tests that watch the order */
  onCall: ((call: FakeCall) => void) | undefined;
  /** UIDs every search leaves out while GET by UID still finds them (a listing that skips one) */
  readonly hiddenFromSearch = new Set<string>();
  /** what listClusterEvents answers, by cluster UID */
  events: Record<string, PaletteEvent[]> = {};
  alertComponents: AlertComponent[] = [
    {
      name: "ClusterHealth",
      description: "Cluster health alerts",
      supportedChannels: ["email", "http"],
    },
  ];

  private readonly source: () => FakeCluster[];

  constructor(clusters: FakeCluster[] | (() => FakeCluster[])) {
    this.source = typeof clusters === "function" ? clusters : () => clusters;
  }

  get clusters(): FakeCluster[] {
    return this.source();
  }

  /** `method` throws `failure`, or what `failure(args)` returns when it returns something. */
  failOn(method: keyof PaletteApi, failure: FakeFailure): void {
    this.failures.set(method, failure);
  }

  callsTo(method: keyof PaletteApi): FakeCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  private enter(method: keyof PaletteApi, args: unknown[]): void {
    this.calls.push({ method, args });
    this.onCall?.({ method, args });
    const failure = this.failures.get(method);
    const error = typeof failure === "function" ? failure(args) : failure;
    if (error !== undefined) throw error;
  }

  private inScope(scope: Scope): FakeCluster[] {
    return scope.projectUid
      ? this.clusters.filter((cluster) => cluster.projectUid === scope.projectUid)
      : this.clusters;
  }

  private find(uid: string, scope: Scope): FakeCluster {
    const cluster = this.inScope(scope).find((candidate) => candidate.uid === uid);
    if (!cluster) {
      throw new PaletteError(
        "not_found",
        404,
        "ResourceNotFound",
        `no cluster ${uid}`,
        "ref-1",
        "GET /v1/spectroclusters/{uid}",
      );
    }
    return cluster;
  }

  private summary(cluster: FakeCluster): ClusterSummary {
    return {
      metadata: {
        uid: cluster.uid,
        name: cluster.name,
        labels: cluster.labels ?? {},
        creationTimestamp: cluster.createdAt ?? null,
      },
      specSummary: {
        cloudConfig: { cloudType: cluster.provider, uid: `cc-${cluster.uid}` },
        projectMeta: cluster.projectUid
          ? { uid: cluster.projectUid, name: cluster.projectName ?? null }
          : null,
      },
      status: {
        state: cluster.state,
        health: cluster.health
          ? {
              state: cluster.health,
              conditions: [
                ...(cluster.healthConditions ?? []),
                ...(cluster.healthReasons ?? []).map((message) => ({ type: "Health", message })),
              ],
            }
          : null,
      },
    };
  }

  async searchClusters(query: ClusterSearch): Promise<Page<ClusterSummary>> {
    this.enter("searchClusters", [query]);
    if (this.gate) await this.gate;
    const tags = query.tags ?? [];
    const within = (value: string | undefined, wanted: ClusterSearch["state"]) =>
      !wanted?.values.length || wanted.values.includes(value ?? "") !== (wanted.negate === true);
    const matching = this.inScope(query).filter(
      (cluster) =>
        !this.hiddenFromSearch.has(cluster.uid) &&
        (query.name === undefined || cluster.name === query.name) &&
        (query.names === undefined || query.names.includes(cluster.name)) &&
        within(cluster.state, query.state) &&
        within(cluster.health, query.health) &&
        (tags.length === 0 ||
          tags.some((tag) => {
            const [key, value] = tag.split(":");
            const labels = cluster.labels ?? {};
            return value === undefined ? key! in labels : labels[key!] === value;
          })),
    );
    const limit = Math.min(query.limit ?? 50, 50);
    const offset = query.continue ? Number(query.continue) : 0;
    const items = matching.slice(offset, offset + limit).map((cluster) => this.summary(cluster));
    const next = offset + limit < matching.length ? String(offset + limit) : undefined;
    return { items, continue: next, total: matching.length };
  }

  async *searchAllClusters(
    query: Omit<ClusterSearch, "continue" | "limit">,
  ): AsyncIterable<ClusterSummary> {
    let token: string | undefined;
    do {
      const page = await this.searchClusters({ ...query, continue: token, limit: 50 });
      yield* page.items;
      token = page.continue;
    } while (token);
  }

  async getCluster(uid: string, scope: Scope): Promise<Cluster> {
    this.enter("getCluster", [uid, scope]);
    const cluster = this.find(uid, scope);
    return {
      metadata: {
        uid: cluster.uid,
        name: cluster.name,
        labels: cluster.labels ?? {},
        creationTimestamp: cluster.createdAt ?? null,
        deletionTimestamp: cluster.deletionTimestamp ?? null,
      },
      spec: {
        cloudType: cluster.provider,
        cloudConfigRef: cluster.pools ? { kind: cluster.provider, uid: `cc-${cluster.uid}` } : null,
      },
      status: {
        state: cluster.state,
        apiEndpoints: [{ host: `${cluster.name}.example.com`, port: 6443 }],
      },
    };
  }

  async getClusterOverview(uid: string, scope: Scope): Promise<ClusterOverview> {
    this.enter("getClusterOverview", [uid, scope]);
    const cluster = this.find(uid, scope);
    return {
      metadata: { uid, name: cluster.name },
      status: {
        state: cluster.state,
        health: cluster.health
          ? {
              state: cluster.health,
              conditions: [
                ...(cluster.healthConditions ?? []),
                ...(cluster.healthReasons ?? []).map((message) => ({ type: "Health", message })),
              ],
            }
          : null,
        kubeMeta: { kubernetesVersion: cluster.kubernetesVersion ?? "1.30.4" },
        // as the real overview (v1SpectroClusterUidSummary) and the simulator carry them
        apiEndpoints: [{ host: `${cluster.name}.example.com`, port: 6443 }],
      },
    };
  }

  async getClusterState(uid: string, scope: Scope): Promise<string | undefined> {
    this.enter("getClusterState", [uid, scope]);
    return this.find(uid, scope).state;
  }

  async getCloudConfig(kind: string, configUid: string, scope: Scope): Promise<CloudConfig> {
    this.enter("getCloudConfig", [kind, configUid, scope]);
    const cluster = this.clusters.find((candidate) => `cc-${candidate.uid}` === configUid);
    if (!cluster?.pools)
      throw new PaletteError(
        "not_found",
        404,
        "ResourceNotFound",
        "no cloud config",
        "ref-2",
        "GET /v1/cloudconfigs/{kind}/{uid}",
      );
    return {
      kind,
      metadata: { uid: configUid },
      spec: {
        machinePoolConfig: cluster.pools.map((pool) => ({
          name: pool.name,
          size: pool.size ?? pool.machines.length,
          isControlPlane: pool.controlPlane ?? false,
        })),
      },
    };
  }

  async listMachines(
    kind: string,
    configUid: string,
    pool: string,
    scope: Scope,
  ): Promise<Machine[]> {
    this.enter("listMachines", [kind, configUid, pool, scope]);
    const cluster = this.clusters.find((candidate) => `cc-${candidate.uid}` === configUid);
    const found = cluster?.pools?.find((candidate) => candidate.name === pool);
    return (found?.machines ?? []).map((machine) => ({
      metadata: { name: machine.name, uid: `m-${machine.name}` },
      status: {
        instanceState: machine.state,
        health: { state: machine.health },
        addresses: machine.address ? [{ type: "InternalIP", address: machine.address }] : [],
      },
    }));
  }

  async getWorkloads(uid: string, namespaces: string[], scope: Scope): Promise<Workloads> {
    this.enter("getWorkloads", [uid, namespaces, scope]);
    return this.find(uid, scope).workloads ?? { spec: {} };
  }

  async getKubeconfig(uid: string, scope: Scope): Promise<Buffer> {
    this.enter("getKubeconfig", [uid, scope]);
    return Buffer.from(this.find(uid, scope).kubeconfig ?? "");
  }

  async listAlertComponents(scope: Scope): Promise<AlertComponent[]> {
    this.enter("listAlertComponents", [scope]);
    return this.alertComponents;
  }

  async listClusterEvents(uid: string, scope: Scope): Promise<PaletteEvent[]> {
    this.enter("listClusterEvents", [uid, scope]);
    return this.events[uid] ?? [];
  }

  async clusterEventsPage(uid: string, scope: Scope): Promise<Page<PaletteEvent>> {
    this.enter("clusterEventsPage", [uid, scope]);
    return { items: this.events[uid] ?? [] };
  }

  /** what listAudits answers, by resource UID (one page) */
  audits: Record<string, PaletteAudit[]> = {};

  async listAudits(query: AuditQuery, scope: Scope): Promise<Page<PaletteAudit>> {
    this.enter("listAudits", [query, scope]);
    return { items: this.audits[query.resourceUid ?? ""] ?? [] };
  }

  async listCloudAccounts(): Promise<never[]> {
    this.enter("listCloudAccounts", []);
    return [];
  }

  async listClusterProfiles(): Promise<never[]> {
    this.enter("listClusterProfiles", []);
    return [];
  }

  async listClusterGroups(): Promise<never[]> {
    this.enter("listClusterGroups", []);
    return [];
  }

  async listEdgeHosts(): Promise<never[]> {
    this.enter("listEdgeHosts", []);
    return [];
  }

  async listProjects(): Promise<never[]> {
    this.enter("listProjects", []);
    return [];
  }

  async createCluster(): Promise<string> {
    this.enter("createCluster", []);
    return "new-uid";
  }

  async deleteCluster(): Promise<void> {
    this.enter("deleteCluster", []);
  }

  async getMachinePool(): Promise<Record<string, unknown> | undefined> {
    this.enter("getMachinePool", []);
    return undefined;
  }

  async updateMachinePool(): Promise<void> {
    this.enter("updateMachinePool", []);
  }

  async setMachineMaintenance(): Promise<void> {
    this.enter("setMachineMaintenance", []);
  }

  async getRepaveStatus(): Promise<{ state?: string; reasons: string[] }> {
    this.enter("getRepaveStatus", []);
    return { reasons: [] };
  }

  async approveRepave(): Promise<void> {
    this.enter("approveRepave", []);
  }

  async getBackup(): Promise<{ namespaces: string[] }> {
    this.enter("getBackup", []);
    return { namespaces: [] };
  }

  async getCertificates(): Promise<CertificateExpiry[]> {
    this.enter("getCertificates", []);
    return [];
  }

  async renewCertificates(): Promise<void> {
    this.enter("renewCertificates", []);
  }

  async pendingRepavesPage(): Promise<Page<PendingRepave>> {
    this.enter("pendingRepavesPage", []);
    return { items: [] };
  }

  async getProfileUpdates(): Promise<ProfileUpdate[]> {
    this.enter("getProfileUpdates", []);
    return [];
  }

  async getBackupHistory(): Promise<BackupHistory> {
    this.enter("getBackupHistory", []);
    return { runs: [] };
  }

  async backupNow(): Promise<string> {
    this.enter("backupNow", []);
    return "backup-request";
  }

  async requestLogs(): Promise<string> {
    this.enter("requestLogs", []);
    return "log-request";
  }

  async getLogRequest(): Promise<{ state?: string; fileName?: string }> {
    this.enter("getLogRequest", []);
    return {};
  }

  async downloadLogs(): Promise<Buffer> {
    this.enter("downloadLogs", []);
    return Buffer.alloc(0);
  }

  async getClusterProfile(): Promise<{
    uid: string;
    name: string;
    versions: Array<{ uid: string; version: string }>;
    packs: Array<{ name: string; tag?: string }>;
  }> {
    this.enter("getClusterProfile", []);
    return { uid: "", name: "", versions: [], packs: [] };
  }

  async updateClusterProfiles(): Promise<void> {
    this.enter("updateClusterProfiles", []);
  }

  async setLifecyclePause(): Promise<void> {
    this.enter("setLifecyclePause", []);
  }
}

export const PROJECT = "proj000000000000000000a1";
export const OTHER_PROJECT = "proj000000000000000000b2";

/** A small fleet that covers the cases the handlers distinguish. */
export function sampleFleet(): FakeCluster[] {
  return [
    {
      uid: "c0000000000000000000001a",
      name: "web-prod",
      projectUid: PROJECT,
      projectName: "Default",
      state: "Running",
      health: "Healthy",
      provider: "aws",
      labels: { env: "spectro__tag", team: "core" },
      createdAt: "2025-12-29T00:00:00Z",
      pools: [
        {
          name: "control-plane",
          controlPlane: true,
          machines: [{ name: "cp-1", state: "Running", health: "Healthy", address: "10.0.0.1" }],
        },
        {
          name: "workers",
          machines: [
            { name: "w-1", state: "Running", health: "Healthy", address: "10.0.0.2" },
            { name: "w-2", state: "Running", health: "UnHealthy", address: "10.0.0.3" },
          ],
        },
      ],
      workloads: {
        spec: {
          pods: [
            {
              metadata: { namespace: "default", entity: { name: "api-1" } },
              status: { phase: "Running", containers: [{ name: "api", ready: true }] },
            },
            {
              metadata: { namespace: "default", entity: { name: "api-2" } },
              status: {
                phase: "Running",
                containers: [{ name: "api", ready: false, restartCount: 4 }],
              },
            },
            {
              metadata: { namespace: "kube-system", entity: { name: "coredns" } },
              status: { phase: "Pending" },
            },
            {
              metadata: { namespace: "batch", entity: { name: "once" } },
              status: { phase: "Succeeded" },
            },
          ],
          deployments: [
            { metadata: { namespace: "default" } },
            { metadata: { namespace: "kube-system" } },
          ],
          statefulSets: [{ metadata: { namespace: "default" } }],
          daemonSets: [{ metadata: { namespace: "kube-system" } }],
          jobs: [{ metadata: { namespace: "batch" } }],
        },
      },
      kubeconfig:
        "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n    token: SECRET-TOKEN-123\n",
    },
    {
      uid: "c0000000000000000000002b",
      name: "<!channel>",
      projectUid: PROJECT,
      projectName: "Default",
      state: "Provisioning",
      health: "UnHealthy",
      healthReasons: ["node w-9 NotReady"],
      provider: "vsphere",
      labels: { env: "spectro__tag" },
      pools: [],
    },
    {
      uid: "c0000000000000000000003c",
      name: "dup",
      projectUid: PROJECT,
      projectName: "Default",
      state: "Running",
      health: "Healthy",
      provider: "gcp",
    },
    {
      uid: "c0000000000000000000004d",
      name: "dup",
      projectUid: OTHER_PROJECT,
      projectName: "Other",
      state: "Failed",
      provider: "azure",
    },
    {
      uid: "c0000000000000000000005e",
      name: "vc-1",
      projectUid: OTHER_PROJECT,
      projectName: "Other",
      state: "Running",
      health: "Healthy",
      provider: "virtual",
    },
  ];
}

export function denyAll(hint = "ask an admin to add you to ALLOW_KUBECONFIG"): AccessPolicy {
  return { allows: async () => false, grantHint: () => hint };
}

export interface TestContextOptions {
  palette?: PaletteApi;
  policy?: AccessPolicy;
  projects?: string[];
  clock?: ManualClock;
}

/** A CommandContext over an in-memory database and a silent logger. */
export async function testContext(options: TestContextOptions = {}): Promise<CommandContext> {
  const db = await openSqlite(":memory:");
  const clock = options.clock ?? new ManualClock(Date.UTC(2026, 0, 1));
  return {
    palette: options.palette ?? new FakePalette(sampleFleet()),
    db,
    audit: new AuditLog(db, clock),
    policy: options.policy ?? { allows: async () => true, grantHint: () => "" },
    clock,
    logger: silentLogger,
    projects: options.projects ?? [],
    consoleUrl: "https://console.example.com/",
    requester: { userId: "U123", channelId: "C123" },
  };
}

/**
 * The calls a FakePalette saw as short lines, for tests that check what was asked in what order:
 * `search p1` (`tenant` when unscoped), `alerts p1`, `events <uid> p1`.
 */
export function callLog(palette: FakePalette): string[] {
  const scopeName = (scope: unknown) => (scope as Scope | undefined)?.projectUid ?? "tenant";
  return palette.calls.map((call) => {
    switch (call.method) {
      case "searchClusters":
        return `search ${scopeName(call.args[0])}`;
      case "listAlertComponents":
        return `alerts ${scopeName(call.args[0])}`;
      case "listClusterEvents":
        return `events ${String(call.args[0])} ${scopeName(call.args[1])}`;
      default:
        return call.method;
    }
  });
}

/** A cluster as the poll tests describe it: just what the poller reads. */
export interface PollCluster {
  uid: string;
  project: string;
  state: string;
  health: string;
  conditions?: Array<{ type: string; message: string }>;
  /** what GET by UID says in `metadata.deletionTimestamp` */
  deletionTimestamp?: string;
}

/**
 * A FakePalette over a poll test's own array, read at each call, so the test changes clusters
 * (or replaces them) between cycles. Each cluster is named `n-<uid>` in project `project <p>`.
 */
export function pollPalette(clusters: PollCluster[]): FakePalette {
  return new FakePalette(() =>
    clusters.map(
      (c): FakeCluster => ({
        uid: c.uid,
        name: `n-${c.uid}`,
        projectUid: c.project,
        projectName: `project ${c.project}`,
        state: c.state,
        health: c.health,
        healthConditions: c.conditions ?? [],
        provider: "aws",
        deletionTimestamp: c.deletionTimestamp,
      }),
    ),
  );
}
