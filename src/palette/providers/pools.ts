import type { CommonValues, CreateBody } from "./types.ts";

// Pieces of the create bodies shared by several providers.

export function pool(name: "cp-pool" | "worker-pool", count: number, controlPlane: boolean) {
  return {
    name,
    size: count,
    labels: [controlPlane ? "control-plane" : "worker"],
    ...(controlPlane ? { isControlPlane: true } : {}),
  };
}

export function profiles(values: CommonValues): Array<{ uid: string }> {
  return values.profile ? [{ uid: values.profile }] : [];
}

export function metadata(values: CommonValues): CreateBody["metadata"] {
  return { name: values.name, labels: { ...values.tags } };
}

/** `{ [key]: value }` when the answer was given, else nothing, for spreading into a body. */
export function ifGiven<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value ? ({ [key]: value } as { [P in K]: V }) : {};
}

/** A control-plane pool and a worker pool on the same machines, as IaaS providers launch. */
export function controlPlaneAndWorkerPools(
  values: { controlPlanes: number; workers: number },
  cloudConfig: Record<string, unknown>,
) {
  return [
    { poolConfig: pool("cp-pool", values.controlPlanes, true), cloudConfig },
    { poolConfig: pool("worker-pool", values.workers, false), cloudConfig },
  ];
}

/** The body of a provider that launches into a cloud account. */
export function accountBody(
  values: CommonValues,
  cloudConfig: Record<string, unknown>,
  machinepoolconfig: unknown[],
): CreateBody {
  return {
    metadata: metadata(values),
    spec: {
      cloudAccountUid: values.account,
      profiles: profiles(values),
      cloudConfig,
      machinepoolconfig,
    },
  };
}
