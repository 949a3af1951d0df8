import type { Provider } from "./providers-list.ts";

/**
 * The body of `PUT /v1/cloudconfigs/{cloudType}/{configUid}/machinePools/{name}` that changes a
 * pool's size and nothing else. Palette's entity splits a pool in two: `cloudConfig`
 * (v1<Cloud>MachinePoolCloudConfigEntity: instance type, zones, disks) and `poolConfig`
 * (v1MachinePoolConfigEntity: name, size, labels, taints …). Both are filled from the pool as
 * `GET /v1/cloudconfigs/{cloudType}/{configUid}` returned it, field by field where the read and
 * the write share a name, so what we did not mean to change is sent back as it was. Pure.
 */

/** v1MachinePoolConfigEntity's fields (palette-apis-spec.json) */
const POOL_FIELDS = [
  "additionalAnnotations",
  "additionalLabels",
  "additionalTags",
  "isControlPlane",
  "labels",
  "machinePoolProperties",
  "maxSize",
  "minSize",
  "name",
  "nodeRepaveInterval",
  "overrideKubeadmConfiguration",
  "size",
  "skipK8sUpgrade",
  "taints",
  "updateStrategy",
  "useControlPlaneAsWorker",
] as const;

/**
 * Each cloud's v1<Cloud>MachinePoolCloudConfigEntity fields. Not here, so not scaled by the bot:
 * openstack (the spec has no pool update path), edge-native (a pool's size is its edge hosts),
 * virtual (its entity has no pool size).
 */
const CLOUD_FIELDS: Partial<Record<Provider, readonly string[]>> = {
  aws: [
    "additionalSecurityGroups",
    "azs",
    "capacityType",
    "hostResourceGroupArn",
    "instanceType",
    "licenseConfigurationArns",
    "rootDeviceSize",
    "spotMarketOptions",
    "subnets",
  ],
  eks: [
    "amiType",
    "awsLaunchTemplate",
    "azs",
    "capacityType",
    "enableAwsLaunchTemplate",
    "instanceType",
    "rootDeviceSize",
    "spotMarketOptions",
    "subnets",
  ],
  azure: ["azs", "instanceType", "isSystemNodePool", "osDisk"],
  aks: ["azs", "instanceType", "isSystemNodePool", "osDisk"],
  gcp: ["azs", "instanceType", "rootDeviceSize", "subnet", "subnets"],
  gke: ["azs", "instanceType", "rootDeviceSize", "subnet", "subnets"],
  vsphere: ["instanceType", "placements"],
  maas: ["azs", "instanceType", "network", "resourcePool", "tags", "useLxdVm"],
};

export function canScale(provider: string): boolean {
  return Object.hasOwn(CLOUD_FIELDS, provider);
}

/** Whether the pool autoscales: Palette then keeps its size between minSize and maxSize. */
export function autoscaleRange(pool: {
  minSize?: number;
  maxSize?: number;
}): { min: number; max: number } | undefined {
  const { minSize, maxSize } = pool;
  if (minSize === undefined || maxSize === undefined || maxSize <= minSize) return undefined;
  return { min: minSize, max: maxSize };
}

export function machinePoolUpdateBody(
  provider: Provider,
  pool: Record<string, unknown>,
  size: number,
): { cloudConfig: Record<string, unknown>; poolConfig: Record<string, unknown> } {
  const cloudFields = CLOUD_FIELDS[provider] ?? [];
  const cloudConfig: Record<string, unknown> = {};
  for (const field of cloudFields) {
    if (pool[field] !== undefined && pool[field] !== null) cloudConfig[field] = pool[field];
  }
  const poolConfig: Record<string, unknown> = {};
  for (const field of POOL_FIELDS) {
    if (pool[field] !== undefined && pool[field] !== null) poolConfig[field] = pool[field];
  }
  poolConfig.size = size;
  poolConfig.labels = Array.isArray(pool.labels) ? pool.labels : [];
  // a fixed-size pool keeps min = max = size, as Spectro Cloud's Terraform provider sends it
  const range = autoscaleRange({
    minSize: typeof pool.minSize === "number" ? pool.minSize : undefined,
    maxSize: typeof pool.maxSize === "number" ? pool.maxSize : undefined,
  });
  if (!range) {
    poolConfig.minSize = size;
    poolConfig.maxSize = size;
  }
  return { cloudConfig, poolConfig };
}
