/** Palette's eleven provider values, as they appear in `POST /v1/spectroclusters/{provider}`. */
export const PROVIDERS = [
  "azure",
  "aks",
  "aws",
  "eks",
  "gcp",
  "gke",
  "maas",
  "vsphere",
  "openstack",
  "edge-native",
  "virtual",
] as const;
export type Provider = (typeof PROVIDERS)[number];

/** Cloud-account kinds (`GET /v1/cloudaccounts/{kind}`); eks uses aws, aks azure, gke gcp. */
export const CLOUD_ACCOUNT_KINDS = ["aws", "azure", "gcp", "maas", "vsphere", "openstack"] as const;
export type CloudAccountKind = (typeof CLOUD_ACCOUNT_KINDS)[number];

export function isProvider(value: string): value is Provider {
  return (PROVIDERS as readonly string[]).includes(value);
}
