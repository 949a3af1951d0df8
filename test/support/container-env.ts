/**
 * The environment a container actually gets, computed the way the image and Kubernetes build it
 * (issue 32: the fakes never did, and the HA install ran on SQLite): the image's ENV first (the
 * Dockerfile's final stage, test/support/dockerfile.ts), then each `envFrom` source in order,
 * then `env`, a later definition of a name replacing an earlier one. `valueFrom` reads the
 * Secrets and ConfigMaps given (rendered by the chart, or created by the operator); a reference
 * to something missing throws, as the kubelet refuses to start such a container.
 */

export type Json = Record<string, unknown>;

interface EnvFromSource {
  prefix?: string;
  configMapRef?: { name: string; optional?: boolean };
  secretRef?: { name: string; optional?: boolean };
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: { name: string; key: string; optional?: boolean };
    configMapKeyRef?: { name: string; key: string; optional?: boolean };
  };
}

export interface ContainerSpec {
  name: string;
  envFrom?: EnvFromSource[];
  env?: EnvVar[];
}

/** A ConfigMap's or a Secret's keys and values (a Secret's `data` decoded from base64). */
function contents(objects: Json[], kind: "ConfigMap" | "Secret", name: string): Json | undefined {
  const found = objects.find(
    (object) => object.kind === kind && (object.metadata as Json | undefined)?.name === name,
  );
  if (!found) return undefined;
  const data = (found.data ?? {}) as Record<string, string>;
  if (kind === "ConfigMap") return { ...data };
  const decoded = Object.fromEntries(
    Object.entries(data).map(([key, value]) => [key, Buffer.from(value, "base64").toString()]),
  );
  // the API server merges stringData into data, stringData winning
  return { ...decoded, ...((found.stringData ?? {}) as Json) };
}

export function containerEnv(
  imageEnv: Record<string, string>,
  container: ContainerSpec,
  objects: Json[],
): Record<string, string> {
  const env: Record<string, string> = { ...imageEnv };
  for (const source of container.envFrom ?? []) {
    const kind = source.configMapRef ? "ConfigMap" : "Secret";
    const ref = source.configMapRef ?? source.secretRef;
    if (!ref)
      throw new Error(`${container.name}: an envFrom entry with no configMapRef or secretRef`);
    const values = contents(objects, kind, ref.name);
    if (!values) {
      if (ref.optional) continue;
      throw new Error(`${container.name}: envFrom ${kind} ${ref.name} does not exist`);
    }
    for (const [key, value] of Object.entries(values)) {
      const name = `${source.prefix ?? ""}${key}`;
      // the kubelet skips keys that are not valid variable names (and reports an event)
      if (/^[-._a-zA-Z][-._a-zA-Z0-9]*$/.test(name)) env[name] = String(value);
    }
  }
  for (const variable of container.env ?? []) {
    if (variable.valueFrom) {
      const { secretKeyRef, configMapKeyRef } = variable.valueFrom;
      const ref = secretKeyRef ?? configMapKeyRef;
      if (!ref) throw new Error(`${variable.name}: a valueFrom this reader does not handle`);
      const values = contents(objects, secretKeyRef ? "Secret" : "ConfigMap", ref.name);
      const value = values?.[ref.key];
      if (value === undefined) {
        if (ref.optional) continue;
        throw new Error(`${variable.name}: ${ref.name} has no key ${ref.key} (or does not exist)`);
      }
      env[variable.name] = String(value);
    } else {
      const value = variable.value ?? "";
      // $(VAR) references would be expanded by Kubernetes; none of ours use them
      if (value.includes("$(")) throw new Error(`${variable.name}: $(…) expansion not handled`);
      env[variable.name] = value;
    }
  }
  return env;
}
