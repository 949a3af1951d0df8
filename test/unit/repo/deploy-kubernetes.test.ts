import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { CONFIG_VARIABLES, loadConfig } from "../../../src/config.ts";
import { createHealth } from "../../../src/http/health.ts";
import { Metrics } from "../../../src/http/metrics.ts";
import { type Json, kustomizeBuild, loadYaml } from "../../support/kustomize.ts";

/**
 * The manifests must agree with the code: config variables, health routes, ports, volume. Two
 * shapes: `kubectl apply -k deploy/kubernetes` (one replica, SQLite on a volume, from base/) and
 * `kubectl apply -k deploy/kubernetes/ha` (two replicas on PostgreSQL, issue 12), both checked as
 * rendered (test/support/kustomize.ts; compared with `kubectl kustomize` where kubectl exists).
 */

const DIR = join(process.cwd(), "deploy", "kubernetes");
const HA_DIR = join(DIR, "ha");

function only(file: string): Json {
  const documents = loadYaml(file) as Json[];
  expect(documents).toHaveLength(1);
  return documents[0]!;
}

function ofKind(resources: Json[], kind: string): Json {
  const found = resources.filter((resource) => resource.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0]!;
}

/** Follows a dotted path through objects and arrays; throws a readable error if it is missing. */
function at<T = unknown>(value: unknown, path: string): T {
  let current: unknown = value;
  for (const key of path.split(".")) {
    if (current === null || typeof current !== "object") throw new Error(`no ${path} (at ${key})`);
    current = (current as Json)[key];
  }
  if (current === undefined) throw new Error(`no ${path}`);
  return current as T;
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Container {
  name: string;
  command?: string[];
  args?: string[];
  env: EnvVar[];
  envFrom: Array<{ secretRef?: { name: string } }>;
  ports: Array<{ name: string; containerPort: number }>;
  livenessProbe: { httpGet: { path: string; port: string | number } };
  readinessProbe: { httpGet: { path: string; port: string | number } };
  resources: { requests: Json; limits: Json };
  securityContext: Json;
  volumeMounts: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
}

const single = kustomizeBuild(DIR);
const deployment = ofKind(single, "Deployment");
const pvc = ofKind(single, "PersistentVolumeClaim");
const service = ofKind(single, "Service");
const secret = only(join(DIR, "secret.example.yaml"));
const container = at<Container[]>(deployment, "spec.template.spec.containers")[0]!;
const volumes = at<Array<{ name: string; persistentVolumeClaim?: { claimName: string } }>>(
  deployment,
  "spec.template.spec.volumes",
);
const env = Object.fromEntries(
  container.env.map((variable) => [variable.name, variable.value ?? ""]),
);
const secretData = at<Record<string, string>>(secret, "stringData");

function portNumber(port: string | number): number {
  if (typeof port === "number") return port;
  const named = container.ports.find((candidate) => candidate.name === port);
  if (!named) throw new Error(`no container port named ${port}`);
  return named.containerPort;
}

describe("Kubernetes manifests", () => {
  it("sets only real configuration variables", () => {
    for (const name of [...Object.keys(env), ...Object.keys(secretData)]) {
      expect(CONFIG_VARIABLES, `${name} is not read by src/config.ts`).toContain(name);
    }
  });

  it("puts every secret in the Secret and none in the Deployment", () => {
    const secretNames = /TOKEN|SECRET|PASSWORD|API_KEY/;
    expect(Object.keys(env).filter((name) => secretNames.test(name))).toEqual([]);
    expect(at(secret, "kind")).toBe("Secret");
    expect(container.envFrom).toContainEqual({ secretRef: { name: at(secret, "metadata.name") } });
    // placeholders, never something that looks like a real token
    expect(JSON.stringify(secretData)).not.toMatch(/xox[abp]-[0-9]|xapp-[0-9]/);
  });

  it("the Secret template provides what `start` requires: the config loads from it", () => {
    expect(secretData.SLACK_BOT_TOKEN).toBeTruthy();
    expect(secretData.SLACK_SIGNING_SECRET || secretData.SLACK_APP_TOKEN).toBeTruthy();
    expect(
      secretData.PALETTE_API_KEY ||
        (secretData.PALETTE_EMAIL && secretData.PALETTE_ORG && secretData.PALETTE_PASSWORD),
    ).toBeTruthy();
    const config = loadConfig({ ...secretData, ...env }, { requireSlack: true });
    expect(config.slack?.mode).toBe("http");
    expect(config.palette.credentials.kind).toBe("apiKey");
    expect(config.port).toBe(container.ports[0]!.containerPort);
  });

  it("probes paths the health routes serve, on the port the bot listens on", () => {
    const routes = createHealth({
      probes: {},
      metrics: new Metrics({ defaultMetrics: false }),
    }).routes.map((route) => route.path);
    expect(container.livenessProbe.httpGet.path).toBe("/healthz");
    expect(container.readinessProbe.httpGet.path).toBe("/readyz");
    expect(routes).toContain(container.livenessProbe.httpGet.path);
    expect(routes).toContain(container.readinessProbe.httpGet.path);
    // the probes and the scrape are on METRICS_PORT, which the Service does not expose
    const opsPort = loadConfig({ ...secretData, ...env }).metricsPort;
    expect(opsPort).toBe(Number(env.METRICS_PORT));
    expect(portNumber(container.livenessProbe.httpGet.port)).toBe(opsPort);
    expect(portNumber(container.readinessProbe.httpGet.port)).toBe(opsPort);
    expect(at<Json>(deployment, "spec.template.metadata.annotations")).toMatchObject({
      "prometheus.io/port": String(opsPort),
    });
    const dockerfile = readFileSync(join(process.cwd(), "Dockerfile"), "utf8");
    expect(dockerfile).toMatch(new RegExp(`^EXPOSE ${env.PORT} ${opsPort}$`, "m"));
  });

  it("the Service targets the bot's port and selects its pods", () => {
    const [port] = at<Array<{ targetPort: string | number }>>(service, "spec.ports");
    expect(portNumber(port!.targetPort)).toBe(Number(env.PORT));
    const podLabels = at<Json>(deployment, "spec.template.metadata.labels");
    expect(podLabels).toMatchObject(at<Json>(service, "spec.selector"));
    expect(podLabels).toMatchObject(at<Json>(deployment, "spec.selector.matchLabels"));
  });

  it("runs one replica with Recreate, the state on the PVC and nothing else writable", () => {
    expect(at(deployment, "spec.replicas")).toBe(1);
    expect(at(deployment, "spec.strategy.type")).toBe("Recreate");
    const claim = volumes.find((volume) => volume.persistentVolumeClaim);
    expect(claim?.persistentVolumeClaim?.claimName).toBe(at(pvc, "metadata.name"));
    expect(at(pvc, "spec.accessModes")).toEqual(["ReadWriteOnce"]);
    const mount = container.volumeMounts.find((volume) => volume.name === claim!.name);
    expect(mount?.mountPath).toBe("/data");
    expect(mount?.readOnly ?? false).toBe(false);
    expect(env.STATE_DB!.startsWith(`${mount!.mountPath}/`)).toBe(true);
    expect(container.securityContext).toMatchObject({
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
    });
    expect(at(deployment, "spec.template.spec.securityContext.runAsNonRoot")).toBe(true);
    expect(container.resources.requests).toHaveProperty("memory");
    expect(container.resources.limits).toHaveProperty("memory");
  });

  it("starts the same command as the image", () => {
    // args replace the image's CMD only: its ENTRYPOINT (node, V8 flags, the bin) stays
    expect(container.args).toEqual(["start"]);
    expect(container.command).toBeUndefined();
    const dockerfile = readFileSync(join(process.cwd(), "Dockerfile"), "utf8");
    expect(dockerfile).toContain('CMD ["start"]');
  });

  it("kustomization lists the manifests but not the Secret template", () => {
    // deploy/kubernetes applies base/ as is; ha/ patches base/ (kustomize refuses an overlay
    // inside its base, hence the split)
    expect(at(only(join(DIR, "kustomization.yaml")), "resources")).toEqual(["base"]);
    const resources = at<string[]>(only(join(DIR, "base", "kustomization.yaml")), "resources");
    expect([...resources].sort()).toEqual(["deployment.yaml", "pvc.yaml", "service.yaml"]);
    for (const file of resources) expect(existsSync(join(DIR, "base", file))).toBe(true);
    expect(single.map((resource) => resource.kind).sort()).toEqual([
      "Deployment",
      "PersistentVolumeClaim",
      "Service",
    ]);
  });
});

/** Two replicas on PostgreSQL: the single shape minus its volume, plus a PDB and anti-affinity. */
describe("Kubernetes manifests, high availability overlay", () => {
  const ha = kustomizeBuild(HA_DIR);
  const haDeployment = ofKind(ha, "Deployment");
  const haPod = at<Json>(haDeployment, "spec.template.spec");
  const haContainer = at<Container[]>(haDeployment, "spec.template.spec.containers")[0]!;
  const haSecret = only(join(HA_DIR, "secret.example.yaml"));
  const haSecretData = at<Record<string, string>>(haSecret, "stringData");
  const podLabels = at<Json>(haDeployment, "spec.template.metadata.labels");

  it("renders the Deployment, the Service and a PodDisruptionBudget, and no volume claim", () => {
    expect(ha.map((resource) => resource.kind).sort()).toEqual([
      "Deployment",
      "PodDisruptionBudget",
      "Service",
    ]);
    expect(ofKind(ha, "Service")).toEqual(service);
  });

  it("runs two replicas and rolls them one new pod at a time, never below two", () => {
    expect(at(haDeployment, "spec.replicas")).toBe(2);
    expect(at(haDeployment, "spec.strategy")).toEqual({
      type: "RollingUpdate",
      rollingUpdate: { maxUnavailable: 0, maxSurge: 1 },
    });
  });

  it("reads DATABASE_URL from the PostgreSQL Secret and keeps no state on a volume", () => {
    const variable = haContainer.env.find((candidate) => candidate.name === "DATABASE_URL");
    expect(variable?.value).toBeUndefined();
    const reference = variable?.valueFrom?.secretKeyRef;
    expect(reference?.name).toBe(at(haSecret, "metadata.name"));
    expect(haSecretData).toHaveProperty(reference!.key);
    // a SQLite path beside the URL would leave the choice of store to precedence rules
    expect(haContainer.env.map((candidate) => candidate.name)).not.toContain("STATE_DB");
    const haVolumes = at<Array<{ name: string; emptyDir?: Json }>>(haPod, "volumes");
    for (const volume of haVolumes) expect(volume, volume.name).toHaveProperty("emptyDir");
    expect(haContainer.volumeMounts.map((mount) => mount.mountPath)).toEqual(["/tmp"]);
    // the Slack and Palette secrets still come from the single shape's Secret
    expect(haContainer.envFrom).toEqual(container.envFrom);
  });

  it("the PostgreSQL Secret template holds a placeholder URL, no credential", () => {
    expect(at(haSecret, "kind")).toBe("Secret");
    expect(Object.keys(haSecretData)).toEqual(["DATABASE_URL"]);
    const url = new URL(haSecretData.DATABASE_URL!);
    expect(url.protocol).toBe("postgres:");
    expect(url.password).toBe("REPLACE_ME");
    // a template, never applied by the overlay (it would overwrite the real URL)
    expect(at<string[]>(only(join(HA_DIR, "kustomization.yaml")), "resources")).not.toContain(
      "secret.example.yaml",
    );
  });

  it("sets only documented configuration variables, and DATABASE_URL", () => {
    // DATABASE_URL selects the PostgreSQL store (issue 12), like STATE_DB=postgres://…
    const known = new Set([...CONFIG_VARIABLES, "DATABASE_URL"]);
    for (const name of [...haContainer.env.map((v) => v.name), ...Object.keys(haSecretData)]) {
      expect(known.has(name), `${name} is not read by src/config.ts`).toBe(true);
    }
    const secretNames = /TOKEN|SECRET|PASSWORD|API_KEY|DATABASE_URL/;
    const plain = haContainer.env.filter((variable) => variable.value !== undefined);
    expect(plain.filter((variable) => secretNames.test(variable.name))).toEqual([]);
  });

  it("a PodDisruptionBudget keeps one replica through a drain", () => {
    const budget = ofKind(ha, "PodDisruptionBudget");
    expect(at(budget, "apiVersion")).toBe("policy/v1");
    expect(at(budget, "spec.minAvailable")).toBe(1);
    expect(at(budget, "spec.selector.matchLabels")).toEqual(
      at(haDeployment, "spec.selector.matchLabels"),
    );
    expect(podLabels).toMatchObject(at<Json>(budget, "spec.selector.matchLabels"));
  });

  it("prefers to place the replicas on different nodes", () => {
    const terms = at<
      Array<{
        weight: number;
        podAffinityTerm: { topologyKey: string; labelSelector: { matchLabels: Json } };
      }>
    >(haPod, "affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution");
    expect(terms).toHaveLength(1);
    expect(terms[0]!.podAffinityTerm.topologyKey).toBe("kubernetes.io/hostname");
    expect(podLabels).toMatchObject(terms[0]!.podAffinityTerm.labelSelector.matchLabels);
    // preferred: a one-node cluster still runs both
    expect(at<Json>(haPod, "affinity.podAntiAffinity")).not.toHaveProperty(
      "requiredDuringSchedulingIgnoredDuringExecution",
    );
  });

  it("probes, ports, command, resources and security context are the single shape's", () => {
    for (const field of [
      "name",
      "image",
      "args",
      "ports",
      "livenessProbe",
      "readinessProbe",
      "resources",
      "securityContext",
    ] as const) {
      expect(haContainer[field as keyof Container], field).toEqual(
        container[field as keyof Container],
      );
    }
    expect(haContainer.securityContext).toMatchObject({
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
    });
    expect(at(haPod, "securityContext")).toEqual(
      at(deployment, "spec.template.spec.securityContext"),
    );
    expect(at(haPod, "automountServiceAccountToken")).toBe(false);
    expect(at(haDeployment, "spec.template.metadata.annotations")).toEqual(
      at(deployment, "spec.template.metadata.annotations"),
    );
    // the ops port (probes, /metrics) comes from the same METRICS_PORT
    const haEnv = Object.fromEntries(haContainer.env.map((v) => [v.name, v.value ?? ""]));
    expect(haEnv.METRICS_PORT).toBe(env.METRICS_PORT);
    expect(haEnv.PORT).toBe(env.PORT);
    // apart from the store, the same settings as the single shape
    const { STATE_DB: _sqlite, ...singleRest } = env;
    const { DATABASE_URL: _postgres, ...haRest } = haEnv;
    expect(haRest).toEqual(singleRest);
  });
});

describe("Kubernetes manifests, as kubectl renders them", () => {
  const kubectl = (() => {
    try {
      execFileSync("kubectl", ["version", "--client"], { stdio: "ignore", timeout: 10_000 });
      return true;
    } catch {
      return false;
    }
  })();

  function rendered(dir: string): Json[] {
    const output = execFileSync("kubectl", ["kustomize", dir], {
      encoding: "utf8",
      timeout: 20_000,
    });
    return parseAllDocuments(output).map((document) => document.toJSON() as Json);
  }

  const byId = (resources: Json[]) =>
    Object.fromEntries(
      resources.map((resource) => [`${resource.kind}/${at(resource, "metadata.name")}`, resource]),
    );

  // The checks above read test/support/kustomize.ts's rendering; this pins it to kubectl's.
  it.skipIf(!kubectl)("kubectl kustomize renders the single shape as the tests read it", () => {
    expect(byId(rendered(DIR))).toEqual(byId(kustomizeBuild(DIR)));
  });

  it.skipIf(!kubectl)("kubectl kustomize renders the HA overlay as the tests read it", () => {
    expect(byId(rendered(HA_DIR))).toEqual(byId(kustomizeBuild(HA_DIR)));
  });
});
