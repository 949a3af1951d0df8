/**
 * Where a cluster's cloud config lives. Palette serves its built-in cloud types under
 * /v1/cloudconfigs/{kind}; custom cloud types (registered by a tenant, e.g. "nutanix") live
 * under /v1/cloudconfigs/cloudTypes/{cloudType}, as Spectro Cloud's Go SDK reads them. Pure.
 */

/** The cloud types with a path of their own in Palette's API (and in the Go SDK). */
const BUILT_IN = new Set([
  "aks",
  "aws",
  "azure",
  "edge-native",
  "eks",
  "gcp",
  "generic",
  "gke",
  "maas",
  "openstack",
  "virtual",
  "vsphere",
]);

const seg = (value: string): string => encodeURIComponent(value);

export function isBuiltInCloudType(kind: string): boolean {
  return BUILT_IN.has(kind);
}

export function cloudConfigPath(kind: string, configUid: string): string {
  const base = isBuiltInCloudType(kind)
    ? `/v1/cloudconfigs/${seg(kind)}`
    : `/v1/cloudconfigs/cloudTypes/${seg(kind)}`;
  return `${base}/${seg(configUid)}`;
}

export function machinesPath(kind: string, configUid: string, pool: string): string {
  return `${cloudConfigPath(kind, configUid)}/machinePools/${seg(pool)}/machines`;
}
