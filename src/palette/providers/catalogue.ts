import { PROVIDERS, type Provider } from "../providers-list.ts";
import { aws, eks } from "./aws.ts";
import { aks, azure } from "./azure.ts";
import { maas, openstack, vsphere } from "./datacenter.ts";
import { edgeNative } from "./edge.ts";
import { gcp, gke } from "./gcp.ts";
import type { Choice, CreateBody, ProviderSpec, RawValues } from "./types.ts";
import { virtual } from "./virtual.ts";

export const PROVIDER_SPECS: Record<Provider, ProviderSpec> = {
  azure,
  aks,
  aws,
  eks,
  gcp,
  gke,
  maas,
  vsphere,
  openstack,
  "edge-native": edgeNative,
  virtual,
};

export function providerSpec(provider: Provider): ProviderSpec {
  return PROVIDER_SPECS[provider];
}

/** The providers in the order the form lists them. */
export function providerChoices(): Choice[] {
  return PROVIDERS.map((provider) => ({ value: provider, label: PROVIDER_SPECS[provider].label }));
}

/** Validates raw answers for `provider` and, when valid, builds the create body. */
export function buildCreateBody(
  provider: Provider,
  raw: RawValues,
):
  | { ok: true; body: CreateBody; values: Record<string, unknown> }
  | { ok: false; errors: Record<string, string> } {
  const spec = PROVIDER_SPECS[provider];
  const result = spec.validate(raw);
  if (!result.ok) return result;
  return { ok: true, body: spec.build(result.values), values: result.values };
}
