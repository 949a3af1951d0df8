import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { CONFIG_VARIABLES, loadConfig } from "../../../src/config.ts";
import { createHealth } from "../../../src/http/health.ts";
import { Metrics } from "../../../src/http/metrics.ts";

/** The manifests must agree with the code: config variables, health routes, ports, volume. */

const DIR = join(process.cwd(), "deploy", "kubernetes");

type Json = Record<string, unknown>;

function load(file: string): Json[] {
  return parseAllDocuments(readFileSync(join(DIR, file), "utf8"))
    .map((document) => document.toJSON() as Json | null)
    .filter((document): document is Json => document !== null);
}

function only(file: string): Json {
  const documents = load(file);
  expect(documents).toHaveLength(1);
  return documents[0]!;
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
}
interface Container {
  name: string;
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

const deployment = only("deployment.yaml");
const pvc = only("pvc.yaml");
const service = only("service.yaml");
const secret = only("secret.example.yaml");
const kustomization = only("kustomization.yaml");
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
    expect(container.args).toEqual(["palette-chatops", "start"]);
    const dockerfile = readFileSync(join(process.cwd(), "Dockerfile"), "utf8");
    expect(dockerfile).toContain('CMD ["palette-chatops", "start"]');
  });

  it("kustomization lists the manifests but not the Secret template", () => {
    const resources = at<string[]>(kustomization, "resources");
    expect(resources.sort()).toEqual(["deployment.yaml", "pvc.yaml", "service.yaml"]);
    for (const file of resources) expect(existsSync(join(DIR, file))).toBe(true);
  });

  const kubectl = (() => {
    try {
      execFileSync("kubectl", ["version", "--client"], { stdio: "ignore", timeout: 10_000 });
      return true;
    } catch {
      return false;
    }
  })();

  it.skipIf(!kubectl)("kubectl kustomize renders it", () => {
    const rendered = execFileSync("kubectl", ["kustomize", DIR], {
      encoding: "utf8",
      timeout: 20_000,
    });
    const kinds = parseAllDocuments(rendered).map((document) => (document.toJSON() as Json).kind);
    expect(kinds.sort()).toEqual(["Deployment", "PersistentVolumeClaim", "Service"]);
  });
});
