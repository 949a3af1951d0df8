import { z } from "zod";
import type { Provider } from "../palette/providers-list.ts";
import { badRequest } from "./api-replies.ts";
import { hasControlPlanePool, type PoolSpec } from "./fleet.ts";
import { asRecord } from "./http-util.ts";

/**
 * The create-cluster body (`POST /v1/spectroclusters/{provider}`) checked the way Palette checks
 * it, with messages that name the field: a pure function of the body, apart from the route, so
 * the rules for a name, labels and machine pools can be read in one place.
 */

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export interface CreateInput {
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
