import type { Provider } from "../palette/providers-list.ts";
import type { Fleet, PoolSpec, SimCluster } from "./fleet.ts";
import type { ClusterCondition } from "./lifecycle.ts";
import { createRng, type Rng } from "./prng.ts";
import { iso, unhealthyMachines } from "./render.ts";

/**
 * Per-cluster details generated on demand from the cluster's own seed: cloud config (machine
 * pools), machines, workloads and the kubeconfig. Same cluster + same condition → same output.
 */

function clusterConfigOf(fleet: Fleet, cluster: SimCluster): Record<string, unknown> {
  switch (cluster.provider) {
    case "aws":
      return { region: cluster.region, sshKeyName: "spectro-sim", vpcId: vpcOf(cluster) };
    case "eks":
      return {
        region: cluster.region,
        vpcId: vpcOf(cluster),
        endpointAccess: { public: true, private: false },
      };
    case "azure":
    case "aks":
      return {
        subscriptionId: "00000000-0000-4000-8000-000000000000",
        location: cluster.region,
        resourceGroup: `rg-${cluster.name}`,
        sshKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAISIMULATEDKEY sim@palette",
      };
    case "gcp":
    case "gke":
      return { project: "palette-sim", region: cluster.region };
    case "maas":
      return { domain: `${cluster.region}.maas.internal` };
    case "openstack":
      return { region: cluster.region, sshKeyName: "spectro-sim" };
    case "vsphere":
      return {
        placement: { datacenter: cluster.region, folder: `spectro/${cluster.name}` },
        sshKeys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAISIMULATEDKEY sim@palette"],
        staticIp: false,
      };
    case "virtual":
      return {
        kubernetesVersion: `v${cluster.kubernetesVersion}`,
        controlPlaneEndpoint: { host: cluster.apiHost, port: 443 },
      };
    case "edge-native": {
      const host = fleet.edgeHosts.find((h) => cluster.edgeHostUids?.includes(h.uid));
      return {
        controlPlaneEndpoint: { host: host?.address ?? cluster.apiHost, type: "VIP" },
        sshKeys: [],
      };
    }
  }
}

function vpcOf(cluster: SimCluster): string {
  return `vpc-${cluster.cloudConfigUid.slice(0, 12)}`;
}

function poolInstance(provider: Provider, pool: PoolSpec): Record<string, unknown> {
  switch (provider) {
    case "maas":
      return { instanceType: { minCPU: 4, minMemInMB: 16384, minDiskSizeInGB: 100 } };
    case "openstack":
      return {
        flavor: pool.instanceType,
        flavorConfig: { name: pool.instanceType, numCPUs: 4, memoryMiB: 8192, diskGiB: 80 },
      };
    case "vsphere":
      return { instanceType: { numCPUs: 4, memoryMiB: 8192, diskGiB: 60 } };
    case "virtual":
      return {
        instanceType: {
          maxCPU: 4,
          maxMemInMiB: 8192,
          maxStorageGiB: 20,
          minCPU: 0,
          minMemInMiB: 0,
          minStorageGiB: 0,
        },
      };
    case "edge-native":
      return {};
    default:
      return { instanceType: pool.instanceType };
  }
}

/** v1AwsCloudConfig, v1VsphereCloudConfig, … (by provider) */
export function cloudConfig(fleet: Fleet, cluster: SimCluster, now: number) {
  const account = fleet.cloudAccounts.find((a) => a.uid === cluster.cloudAccountUid);
  const edgeHosts = fleet.edgeHosts.filter((h) => cluster.edgeHostUids?.includes(h.uid));
  return {
    apiVersion: "v1",
    kind: cluster.provider,
    metadata: {
      uid: cluster.cloudConfigUid,
      name: `${cluster.name}-config`,
      creationTimestamp: iso(cluster.createdAt),
      lastModifiedTimestamp: iso(Math.min(now, cluster.createdAt + 60_000)),
    },
    spec: {
      ...(account
        ? { cloudAccountRef: { kind: account.kind, name: account.name, uid: account.uid } }
        : {}),
      ...(cluster.provider === "virtual" ? { hostClusterUid: cluster.hostClusterUid ?? "" } : {}),
      clusterConfig: clusterConfigOf(fleet, cluster),
      machinePoolConfig: cluster.pools.map((pool) => ({
        name: pool.name,
        size: pool.size,
        minSize: pool.size,
        maxSize: pool.size,
        isControlPlane: pool.isControlPlane,
        labels: [pool.isControlPlane ? "control-plane" : "worker"],
        ...poolInstance(cluster.provider, pool),
        ...(cluster.provider === "edge-native"
          ? {
              hosts: edgeHosts.map((h) => ({
                hostUid: h.uid,
                hostAddress: h.address,
                hostName: h.name,
              })),
            }
          : {}),
      })),
    },
    status: { conditions: [] as unknown[] },
  };
}

export function poolNames(cluster: SimCluster): string[] {
  return cluster.pools.map((pool) => pool.name);
}

function ip(rng: Rng): string {
  return `10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(2, 254)}`;
}

function machineSpec(cluster: SimCluster, pool: PoolSpec, rng: Rng, address: string) {
  switch (cluster.provider) {
    case "aws":
    case "eks":
      return {
        instanceType: pool.instanceType,
        vpcId: vpcOf(cluster),
        ami: `ami-${rng.hex(17)}`,
        az: `${cluster.region}a`,
        dnsName: `ip-${address.replaceAll(".", "-")}.ec2.internal`,
      };
    case "azure":
    case "aks":
      return {
        instanceType: pool.instanceType,
        location: cluster.region,
        osDisk: { diskSizeGB: 128 },
      };
    case "gcp":
    case "gke":
      return { instanceType: pool.instanceType };
    case "openstack":
      return {
        instanceType: { name: pool.instanceType, numCPUs: 4, memoryMiB: 8192, diskGiB: 80 },
        nics: [{ networkName: "private-net", privateIPs: [address] }],
        az: "nova",
      };
    case "vsphere":
      return {
        vcenterServer: "vcenter.sim.local",
        nics: [{ networkName: "VM Network", privateIPs: [address] }],
        placement: { datacenter: cluster.region, folder: `spectro/${cluster.name}` },
        instanceType: { numCPUs: 4, memoryMiB: 8192, diskGiB: 60 },
      };
    default:
      return {};
  }
}

/** Machines of one pool (v1AwsMachine …, status v1CloudMachineStatus); undefined: no such pool. */
export function machines(
  cluster: SimCluster,
  condition: ClusterCondition,
  poolName: string,
  now: number,
  resizeMs = 0,
) {
  const poolIndex = cluster.pools.findIndex((pool) => pool.name === poolName);
  const pool = cluster.pools[poolIndex];
  if (!pool) return undefined;
  if (condition.state === "Deleted") return [];
  const rng = createRng(cluster.detailSeed + poolIndex * 7919);
  const firstWorkerPool = cluster.pools.find((p) => !p.isControlPlane);
  const sick = unhealthyMachines(condition) > 0 && firstWorkerPool === pool;
  const out = [];
  // within a resize's window the added machines provision and the removed ones drain
  const resizing = pool.resize && now < pool.resize.at + resizeMs ? pool.resize : undefined;
  const count = resizing ? Math.max(pool.size, resizing.from) : pool.size;
  for (let i = 0; i < count; i++) {
    const address = ip(rng);
    const name = `${cluster.name}-${pool.name}-${rng.hex(5)}`;
    const resizeState =
      resizing && i >= pool.size
        ? "Deleting"
        : resizing && i >= resizing.from
          ? "Provisioning"
          : undefined;
    // v1CloudMachineStatus.instanceState is an enum: Pending, Provisioning, Provisioned,
    // Running, Deleting, Deleted, Failed, Unknown
    const instanceState =
      resizeState ??
      (condition.state === "Deleting"
        ? "Deleting"
        : condition.state === "Failed"
          ? "Failed"
          : condition.state === "Pending"
            ? "Pending"
            : condition.state === "Provisioning"
              ? pool.isControlPlane
                ? "Provisioned"
                : "Provisioning"
              : "Running");
    const unhealthy = sick && i === 0;
    const uid = rng.hex(24);
    const maintenance = cluster.maintenance?.get(uid);
    const healthState =
      instanceState !== "Running" ? "Unknown" : unhealthy ? "Unhealthy" : "Healthy";
    out.push({
      apiVersion: "v1",
      kind: "Machine",
      metadata: {
        uid,
        name,
        creationTimestamp: iso(cluster.createdAt + 60_000 * (i + 1)),
        labels: { "node-role": pool.isControlPlane ? "control-plane" : "worker" },
      },
      spec: machineSpec(cluster, pool, rng, address),
      status: {
        instanceState,
        ready: healthState === "Healthy",
        health: {
          state: healthState,
          lastHeartBeatTimestamp: iso(unhealthy ? now - 5 * 60_000 : now),
          conditions: [
            unhealthy
              ? {
                  type: "NodeReady",
                  status: "False",
                  reason: "KubeletNotReady",
                  message: condition.reason ?? "kubelet stopped posting node status",
                }
              : {
                  type: "NodeReady",
                  status: healthState === "Healthy" ? "True" : "Unknown",
                  reason: healthState === "Healthy" ? "KubeletReady" : "Provisioning",
                  message:
                    healthState === "Healthy" ? "kubelet is posting ready status" : "node joining",
                },
          ],
        },
        ...(maintenance
          ? {
              maintenanceStatus: {
                action: maintenance.action,
                // draining a node takes a while; then Palette reports the action complete
                state: now < maintenance.at + resizeMs ? "InProgress" : "Complete",
                message:
                  maintenance.action === "cordon"
                    ? "node is unschedulable"
                    : "node is schedulable again",
              },
            }
          : {}),
        addresses: [
          { type: "InternalIP", address },
          { type: "Hostname", address: name },
        ],
      },
    });
  }
  return out;
}

interface WorkloadMeta {
  namespace: string;
  entity: { kind: string; name: string; uid: string };
  creationTimestamp: string;
  labels: Record<string, string>;
}

/** v1ClusterWorkload: pods, deployments, statefulsets, daemonsets, jobs, cronjobs per namespace */
export function workloads(
  cluster: SimCluster,
  condition: ClusterCondition,
  namespaces: readonly string[],
  now: number,
) {
  const rng = createRng(cluster.detailSeed ^ 0x5bd1e995);
  const running = condition.state === "Running" || condition.state === "Updating";
  const empty = {
    metadata: { name: cluster.name },
    spec: { pods: [], deployments: [], statefulSets: [], daemonSets: [], jobs: [], cronJobs: [] },
  };
  if (!running) return empty;
  const app = cluster.name.split("-")[0] ?? "app";
  const nodes = cluster.pools.flatMap((pool, poolIndex) => {
    const poolRng = createRng(cluster.detailSeed + poolIndex * 7919);
    return Array.from({ length: pool.size }, () => {
      ip(poolRng);
      return `${cluster.name}-${pool.name}-${poolRng.hex(5)}`;
    });
  });
  const workerNodes = nodes.length > 1 ? nodes.slice(1) : nodes;
  const created = iso(cluster.createdAt + 20 * 60_000);
  const meta = (namespace: string, kind: string, name: string): WorkloadMeta => ({
    namespace,
    entity: { kind, name, uid: rng.hex(24) },
    creationTimestamp: created,
    labels: { app: name },
  });
  const unhealthyCluster = condition.health !== "Healthy";
  const pendingPod = !unhealthyCluster && cluster.detailSeed % 5 === 0;

  const pods: unknown[] = [];
  const deployments: unknown[] = [];
  const statefulSets: unknown[] = [];
  const daemonSets: unknown[] = [];
  const jobs: unknown[] = [];
  const cronJobs: unknown[] = [];

  type PodTrouble = "none" | "crash" | "pending";
  const pod = (namespace: string, owner: string, trouble: PodTrouble) => {
    const node = rng.pick(workerNodes);
    const name = `${owner}-${rng.hex(9)}-${rng.hex(5)}`;
    const containerName = owner.split("-")[0] ?? owner;
    const phase =
      trouble === "crash" ? "CrashLoopBackOff" : trouble === "pending" ? "Pending" : "Running";
    pods.push({
      metadata: {
        ...meta(namespace, "Pod", name),
        nodename: trouble === "pending" ? "" : node,
      },
      status: {
        phase,
        podIp: trouble === "pending" ? "" : `172.16.${rng.int(0, 255)}.${rng.int(2, 254)}`,
        qosClass: "Burstable",
        containers: [
          {
            name: containerName,
            image: `registry.example.com/${app}/${containerName}:1.${rng.int(0, 9)}.${rng.int(0, 20)}`,
            ready: trouble === "none",
            started: trouble !== "pending",
            restartCount: trouble === "crash" ? rng.int(12, 80) : 0,
            state:
              trouble === "crash"
                ? { state: "waiting", reason: "CrashLoopBackOff" }
                : trouble === "pending"
                  ? { state: "waiting", reason: "Unschedulable" }
                  : { state: "running", startedAt: created },
          },
        ],
      },
    });
  };
  const deployment = (
    namespace: string,
    name: string,
    replicas: number,
    troubled = 0,
    trouble: PodTrouble = "none",
  ) => {
    for (let i = 0; i < replicas; i++) pod(namespace, name, i < troubled ? trouble : "none");
    const ready = replicas - troubled;
    deployments.push({
      metadata: meta(namespace, "Deployment", name),
      status: { replicas: { total: replicas, ready, available: ready, updated: replicas } },
    });
  };
  const statefulSet = (namespace: string, name: string, replicas: number) => {
    for (let i = 0; i < replicas; i++) pod(namespace, name, "none");
    statefulSets.push({
      metadata: meta(namespace, "StatefulSet", name),
      status: {
        replicas: { total: replicas, ready: replicas, available: replicas, updated: replicas },
      },
    });
  };
  const daemonSet = (namespace: string, name: string) => {
    const count = nodes.length;
    for (let i = 0; i < count; i++) pod(namespace, name, "none");
    daemonSets.push({
      metadata: meta(namespace, "DaemonSet", name),
      status: {
        desiredScheduled: count,
        currentScheduled: count,
        ready: count,
        available: count,
        updatedScheduled: count,
        misScheduled: 0,
      },
    });
  };

  deployment("kube-system", "coredns", 2);
  deployment("kube-system", "metrics-server", 1);
  daemonSet("kube-system", "kube-proxy");
  daemonSet("kube-system", "cilium");
  statefulSet("monitoring", "prometheus-k8s", 2);
  deployment("monitoring", "grafana", 1);
  daemonSet("monitoring", "node-exporter");
  deployment("cert-manager", "cert-manager", 1);
  deployment(app, `${app}-api`, 3, unhealthyCluster ? 1 : 0, "crash");
  deployment(app, `${app}-worker`, 2, pendingPod ? 1 : 0, "pending");
  statefulSet(app, `${app}-redis`, 1);
  jobs.push({
    metadata: meta(app, "Job", `${app}-migrate-${rng.hex(5)}`),
    status: {
      startTime: created,
      completionTime: created,
      succeeded: 1,
      conditions: [{ type: "Complete", status: "True", lastTransitionTime: created }],
    },
  });
  cronJobs.push({
    metadata: meta(app, "CronJob", `${app}-backup`),
    spec: { schedule: "0 3 * * *" },
    status: { lastScheduleTime: iso(now - ((now / 1000) % 86_400) * 1000 + 3 * 3_600_000) },
  });
  jobs.push({
    metadata: meta("default", "Job", `smoke-test-${rng.hex(5)}`),
    status: { startTime: created, completionTime: created, succeeded: 1 },
  });

  const keep = (item: unknown) => {
    if (namespaces.length === 0) return true;
    const ns = (item as { metadata: { namespace: string } }).metadata.namespace;
    return namespaces.includes(ns);
  };
  return {
    metadata: { name: cluster.name },
    spec: {
      pods: pods.filter(keep),
      deployments: deployments.filter(keep),
      statefulSets: statefulSets.filter(keep),
      daemonSets: daemonSets.filter(keep),
      jobs: jobs.filter(keep),
      cronJobs: cronJobs.filter(keep),
    },
  };
}

/** A realistic kubeconfig for the cluster, carrying a fake (per-cluster) bearer token. */
export function kubeconfig(cluster: SimCluster): string {
  const rng = createRng(cluster.detailSeed ^ 0x1f2e3d4c);
  const server = `https://${cluster.apiHost}:${cluster.provider === "virtual" ? 443 : 6443}`;
  const ca = Buffer.from(
    `-----BEGIN CERTIFICATE-----\nSIMULATED-CA-${cluster.uid}\n-----END CERTIFICATE-----\n`,
  ).toString("base64");
  const user = `${cluster.name}-admin`;
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    `- name: ${cluster.name}`,
    "  cluster:",
    `    server: ${server}`,
    `    certificate-authority-data: ${ca}`,
    "contexts:",
    `- name: ${user}@${cluster.name}`,
    "  context:",
    `    cluster: ${cluster.name}`,
    `    user: ${user}`,
    "    namespace: default",
    `current-context: ${user}@${cluster.name}`,
    "preferences: {}",
    "users:",
    `- name: ${user}`,
    "  user:",
    `    token: sim-${rng.hex(8)}.${rng.hex(32)}`,
    "",
  ].join("\n");
}
