import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isMap, isScalar, parseDocument, type YAMLMap } from "yaml";
import { CONFIG_VARIABLES, loadConfig } from "../../../src/config.ts";
import { createHealth } from "../../../src/http/health.ts";
import { Metrics } from "../../../src/http/metrics.ts";
import {
  at,
  botContainer,
  CHART,
  effectiveEnv,
  FIXTURES,
  helmRefusal,
  INSTALLS,
  type Install,
  type Json,
  modelOf,
  ofKind,
  operatorSecrets,
  RELEASE,
  ROOT,
  render,
  theDeployment,
} from "../../support/chart.ts";
import { HELM_UNAVAILABLE, helm, helmPath } from "../../support/helm.ts";

/**
 * The Helm chart (issue 32), rendered by the real Helm (test/support/helm.ts) for the four value
 * sets of test/fixtures/helm: lint, every object valid for Kubernetes (kubernetes-models' JSON
 * schemas), and what matters to an operator: the store, the settings that reach the bot, the
 * security context, probes on the health port, and the HA shape only on PostgreSQL.
 */

const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const noHelm = HELM_UNAVAILABLE !== undefined;
if (noHelm) console.warn(HELM_UNAVAILABLE);

const rendered = new Map<Install, Json[]>();
const objectsOf = (install: Install): Json[] => {
  if (!rendered.has(install)) rendered.set(install, render(install));
  return rendered.get(install)!;
};

describe.skipIf(noHelm)("the Helm chart, rendered by Helm", () => {
  it("helm lint --strict passes with each value set", () => {
    for (const install of INSTALLS) {
      const output = helm([
        "lint",
        "--strict",
        CHART,
        "--values",
        join(FIXTURES, `${install}.yaml`),
      ]);
      expect(output, install).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    }
    expect(helm(["version", "--short"])).toMatch(/^v4\./);
    expect(helmPath()).toContain(join("node_modules", ".cache"));
  });

  it("renders only objects valid for Kubernetes 1.34 (kubernetes-models' schemas)", async () => {
    for (const install of INSTALLS) {
      for (const object of objectsOf(install)) {
        const label = `${install}: ${String(object.kind)} ${at(object, "metadata.name")}`;
        if (object.kind === "ServiceMonitor") {
          // a CRD of the Prometheus Operator, not in Kubernetes' schemas: its shape by hand
          expect(object.apiVersion, label).toBe("monitoring.coreos.com/v1");
          expect(at(object, "spec.endpoints.0.port"), label).toBe("metrics");
          continue;
        }
        const Model = await modelOf(object);
        expect(Model, `${label}: a kind Kubernetes knows`).toBeDefined();
        expect(() => new Model!(object).validate(), label).not.toThrow();
      }
    }
  });

  it("renders each install's objects, the NetworkPolicy with one replica too, and the HA extras only with more than one", () => {
    const kinds = (install: Install) =>
      objectsOf(install)
        .map((object) => String(object.kind))
        .sort();
    expect(kinds("default")).toEqual([
      "ConfigMap",
      "Deployment",
      "NetworkPolicy",
      "PersistentVolumeClaim",
      "Pod",
      "Secret",
      "Service",
    ]);
    expect(kinds("ha")).toEqual([
      "ConfigMap",
      "Deployment",
      "NetworkPolicy",
      "Pod",
      "PodDisruptionBudget",
      "Secret",
      "Service",
    ]);
    expect(kinds("http")).toEqual([
      "ConfigMap",
      "Deployment",
      "Ingress",
      "NetworkPolicy",
      "PersistentVolumeClaim",
      "Pod",
      "Secret",
      "Service",
      "ServiceMonitor",
    ]);
    // the operator's Secret is used as is: the chart creates none
    expect(kinds("existing-secret")).not.toContain("Secret");
  });

  it("refuses 2 replicas without PostgreSQL at render time, saying why", () => {
    const message = helmRefusal([
      "--values",
      join(FIXTURES, "default.yaml"),
      "--set",
      "replicaCount=2",
    ]);
    expect(message).toContain("replicaCount=2 needs PostgreSQL");
    expect(message).toContain("database.existingSecret");
    expect(message).toMatch(/SQLite/);
    expect(message).toMatch(/each would lead/);
  });

  it("refuses a credential in the ConfigMap's values, a key the schema does not know, and an Ingress in Socket Mode", () => {
    const refusal = (sets: string[]) =>
      helmRefusal([
        "--values",
        join(FIXTURES, "default.yaml"),
        ...sets.flatMap((set) => ["--set", set]),
      ]);
    expect(refusal(["config.PALETTE_API_KEY=x"])).toMatch(/looks like a credential/);
    expect(refusal(["replicas=2"])).toMatch(/additional properties 'replicas' not allowed/);
    expect(refusal(["ingress.enabled=true"])).toMatch(/needs slack.mode=http/);
    expect(refusal(["slack.mode=websocket"])).toMatch(/slack\.mode|mode/);
  });

  it("gives the container exactly: the ConfigMap, then the Secret, then DATABASE_URL alone in env", () => {
    for (const install of INSTALLS) {
      const container = botContainer(objectsOf(install));
      expect(
        container.envFrom?.map((source) => Object.keys(source)[0]),
        install,
      ).toEqual(["configMapRef", "secretRef"]);
      // env may only add the database URL from its Secret: a plain value there would override
      // the operator's Secret (issue 32: PALETTE_PROJECTS and ALLOW_* set to "" did)
      for (const variable of container.env ?? []) {
        expect(variable.name, install).toBe("DATABASE_URL");
        expect(variable.value, install).toBeUndefined();
        expect(variable.valueFrom?.secretKeyRef, install).toBeDefined();
      }
      // no empty entry anywhere: it would hide nothing but mislead the reader
      for (const map of [
        ...ofKind(objectsOf(install), "ConfigMap"),
        ...ofKind(objectsOf(install), "Secret"),
      ]) {
        for (const [key, value] of Object.entries({
          ...(map.data as Json),
          ...(map.stringData as Json),
        })) {
          expect(String(value), `${install}: ${key}`).not.toBe("");
          expect(CONFIG_VARIABLES, `${install}: ${key} is read by src/config.ts`).toContain(key);
        }
      }
    }
  });

  it("the effective environment: SQLite on the volume for one replica, PostgreSQL for HA, the operator's settings in force", () => {
    const configOf = (install: Install) =>
      loadConfig(effectiveEnv(objectsOf(install), operatorSecrets()), { requireSlack: true });

    const single = configOf("default");
    expect(single.stateDb).toEqual({ kind: "sqlite", path: "/data/palette-chatops.sqlite" });
    const mount = at<Array<{ name: string; mountPath: string }>>(
      botContainer(objectsOf("default")),
      "volumeMounts",
    );
    expect(mount.map((m) => m.mountPath)).toContain("/data");
    expect(single.slack?.mode).toBe("socket");
    expect(single.palette.projects).toEqual(["fixture-project-uid"]);
    expect(single.allowLaunch).toEqual(["U0FIXLAUNCH"]);

    const ha = configOf("ha");
    expect(ha.stateDb.kind).toBe("postgres");
    expect(ha.slack?.mode).toBe("http");
    expect(ha.palette.projects).toEqual(["fixture-project-uid"]);
    expect(ha.allowKubeconfig).toEqual(["U0FIXKUBE"]);

    // the settings in the operator's own Secret reach the bot: nothing in the pod hides them
    const own = configOf("existing-secret");
    expect(own.palette.projects).toEqual(["fixture-project-uid"]);
    expect(own.allowLaunch).toEqual(["U0FIXLAUNCH"]);
    expect(own.allowKubeconfig).toEqual(["U0FIXKUBE"]);
    expect(own.logLevel).toBe("debug");
    expect(configOf("http").slack?.mode).toBe("http");
  });

  it("runs as the kustomize base did: non-root, read-only root, no capabilities, seccomp, no token", () => {
    for (const install of INSTALLS) {
      const objects = objectsOf(install);
      const pods = [
        at<Json>(theDeployment(objects), "spec.template.spec"),
        ...ofKind(objects, "Pod").map((pod) => at<Json>(pod, "spec")),
      ];
      for (const pod of pods) {
        expect(pod.automountServiceAccountToken, install).toBe(false);
        expect(pod.securityContext, install).toMatchObject({
          runAsNonRoot: true,
          runAsUser: 1000,
          seccompProfile: { type: "RuntimeDefault" },
        });
        for (const container of pod.containers as Json[]) {
          expect(container.securityContext, install).toEqual({
            runAsNonRoot: true,
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ["ALL"] },
          });
          expect(container.resources, install).toMatchObject({
            requests: { memory: expect.any(String) },
            limits: { memory: expect.any(String) },
          });
          // the root filesystem is read-only: Node and SQLite write in /tmp
          expect(
            at<Array<{ mountPath: string }>>(container, "volumeMounts").map((m) => m.mountPath),
          ).toContain("/tmp");
        }
      }
    }
  });

  it("probes /healthz and /readyz on the port METRICS_PORT gives the bot", () => {
    const routes = createHealth({
      probes: {},
      metrics: new Metrics({ defaultMetrics: false }),
    }).routes.map((route) => route.path);
    for (const install of INSTALLS) {
      const objects = objectsOf(install);
      const container = botContainer(objects);
      const config = loadConfig(effectiveEnv(objects, operatorSecrets()), { requireSlack: true });
      const ports = at<Array<{ name: string; containerPort: number }>>(container, "ports");
      const portNamed = (name: string) => ports.find((port) => port.name === name)?.containerPort;
      for (const [probe, path] of [
        ["livenessProbe", "/healthz"],
        ["readinessProbe", "/readyz"],
      ] as const) {
        expect(at(container, `${probe}.httpGet.path`)).toBe(path);
        expect(routes).toContain(path);
        expect(portNamed(at(container, `${probe}.httpGet.port`)), install).toBe(config.metricsPort);
      }
      expect(portNamed("http"), install).toBe(config.port);
      // the image exposes the same two ports
      expect(read("Dockerfile")).toMatch(
        new RegExp(`^EXPOSE ${config.port} ${config.metricsPort}$`, "m"),
      );
      expect(at(container, "args")).toEqual(["start"]);
      expect(container.command).toBeUndefined();
    }
  });

  it("one replica on SQLite: Recreate, the state on a claim; HA: rolling, no claim, a PDB, spread", () => {
    const single = theDeployment(objectsOf("default"));
    expect(at(single, "spec.replicas")).toBe(1);
    expect(at(single, "spec.strategy.type")).toBe("Recreate");
    const [claim] = ofKind(objectsOf("default"), "PersistentVolumeClaim");
    expect(at(claim, "spec.accessModes")).toEqual(["ReadWriteOnce"]);
    expect(at(single, "spec.template.spec.volumes.0.persistentVolumeClaim.claimName")).toBe(
      at(claim, "metadata.name"),
    );

    const objects = objectsOf("ha");
    const ha = theDeployment(objects);
    expect(at(ha, "spec.replicas")).toBe(2);
    expect(at(ha, "spec.strategy")).toEqual({
      type: "RollingUpdate",
      rollingUpdate: { maxUnavailable: 0, maxSurge: 1 },
    });
    expect(
      at<Json[]>(ha, "spec.template.spec.volumes").map((volume) => Object.keys(volume).sort()),
    ).toEqual([["emptyDir", "name"]]);
    const podLabels = at<Json>(ha, "spec.template.metadata.labels");
    const [budget] = ofKind(objects, "PodDisruptionBudget");
    expect(at(budget, "spec.minAvailable")).toBe(1);
    expect(podLabels).toMatchObject(at<Json>(budget, "spec.selector.matchLabels"));
    const term = at<Json>(
      ha,
      "spec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution.0.podAffinityTerm",
    );
    expect(term.topologyKey).toBe("kubernetes.io/hostname");
    const [service] = ofKind(objects, "Service");
    expect(podLabels).toMatchObject(at<Json>(service, "spec.selector"));
  });

  it("the HA NetworkPolicy: egress to DNS, HTTPS and the database; ingress to the HTTP and metrics ports only", () => {
    const [policy] = ofKind(objectsOf("ha"), "NetworkPolicy");
    expect(at(policy, "spec.policyTypes")).toEqual(["Ingress", "Egress"]);
    const ingressPorts = at<Json[]>(policy, "spec.ingress").flatMap((rule) =>
      (rule.ports as Json[]).map((port) => port.port),
    );
    expect(ingressPorts.sort()).toEqual(["http", "metrics"]);
    const egressPorts = at<Json[]>(policy, "spec.egress").flatMap((rule) =>
      (rule.ports as Json[]).map((port) => `${String(port.protocol)}/${String(port.port)}`),
    );
    expect(egressPorts.sort()).toEqual(["TCP/443", "TCP/5432", "TCP/53", "UDP/53"].sort());
    expect(at<Json>(theDeployment(objectsOf("ha")), "spec.template.metadata.labels")).toMatchObject(
      at<Json>(policy, "spec.podSelector.matchLabels"),
    );
  });

  it("the assistant off: no ASSISTANT_* anywhere, no model egress, no assistant in the config", () => {
    for (const install of ["default", "ha", "http", "existing-secret"] as const) {
      for (const map of [
        ...ofKind(objectsOf(install), "ConfigMap"),
        ...ofKind(objectsOf(install), "Secret"),
      ]) {
        const keys = Object.keys({ ...(map.data as Json), ...(map.stringData as Json) });
        expect(
          keys.filter((key) => key.startsWith("ASSISTANT_")),
          install,
        ).toEqual([]);
      }
    }
    const config = loadConfig(effectiveEnv(objectsOf("default"), operatorSecrets()), {
      requireSlack: true,
    });
    expect(config.assistant).toBeUndefined();
  });

  it("the assistant on: its settings in the ConfigMap, its key only in the Secret, all reaching the bot", () => {
    const objects = objectsOf("assistant");
    const [configMap] = ofKind(objects, "ConfigMap");
    const data = at<Json>(configMap, "data");
    expect(data).not.toHaveProperty("ASSISTANT_API_KEY");
    expect(data).toMatchObject({
      ASSISTANT_PROVIDER: "openai-compatible",
      ASSISTANT_MODEL: "llama3.1:8b",
      ASSISTANT_TOKEN_BUDGET: "1000000",
      ASSISTANT_AUDIT_TEXT: "true",
    });
    const secrets = ofKind(objects, "Secret").filter(
      (secret) => at(secret, "metadata.name") === `${RELEASE}-palette-chatops`,
    );
    expect(at(secrets[0], "stringData.ASSISTANT_API_KEY")).toBe("fixture-model-api-key");
    const config = loadConfig(effectiveEnv(objects, operatorSecrets()), { requireSlack: true });
    expect({ ...config.assistant, apiKey: config.assistant?.apiKey?.reveal() }).toEqual({
      provider: "openai-compatible",
      baseUrl: "http://vllm.ai.svc.cluster.local:8000/v1",
      model: "llama3.1:8b",
      apiKey: "fixture-model-api-key",
      maxToolCalls: 8,
      tokenBudget: 1_000_000,
      perUserPerHour: 10,
      timeoutMs: 60_000,
      historyDays: 7,
      auditText: true,
      // issue 36: not set by the chart, so their safe defaults
      proposeDangerous: false,
      redact: [],
      showEmail: false,
      maxPaletteRequests: 40,
      maxConcurrent: 4,
    });
    // the operator's own Secret carries the key: the chart sets the rest
    const own = render(
      "existing-secret",
      [],
      [
        "assistant.enabled=true",
        "assistant.provider=anthropic",
        "assistant.model=claude-sonnet-4-5",
      ],
    );
    const withKey = operatorSecrets().map((secret) =>
      at(secret, "metadata.name") === "chatops-env"
        ? {
            ...secret,
            stringData: { ...(secret.stringData as Json), ASSISTANT_API_KEY: "sk-ant-fixture" },
          }
        : secret,
    );
    const ownConfig = loadConfig(effectiveEnv(own, withKey), { requireSlack: true });
    expect(ownConfig.assistant?.provider).toBe("anthropic");
    expect(ownConfig.assistant?.apiKey?.reveal()).toBe("sk-ant-fixture");
    expect(ofKind(own, "Secret")).toEqual([]);
  });

  it("the assistant's NetworkPolicy egress: its ports, only to its CIDRs; any address without them", () => {
    const egressOf = (objects: Json[]) =>
      at<Json[]>(ofKind(objects, "NetworkPolicy")[0], "spec.egress");
    const model = egressOf(objectsOf("assistant")).filter((rule) =>
      (rule.ports as Json[]).some((port) => port.port === 8000),
    );
    expect(model).toEqual([
      { ports: [{ port: 8000, protocol: "TCP" }], to: [{ ipBlock: { cidr: "10.96.0.0/12" } }] },
    ]);
    const open = egressOf(
      render("assistant", [], ["assistant.egress.cidrs=null", "assistant.egress.ports={11434}"]),
    );
    expect(open.at(-1)).toEqual({ ports: [{ port: 11434, protocol: "TCP" }] });
  });

  it("refuses an assistant it could not run, saying what to set", () => {
    const refusal = (sets: string[], values = "default") => {
      try {
        helm([
          "template",
          RELEASE,
          CHART,
          "--values",
          join(FIXTURES, `${values}.yaml`),
          ...sets.flatMap((set) => ["--set", set]),
        ]);
        return "";
      } catch (error) {
        return String((error as { stderr?: string }).stderr ?? error);
      }
    };
    expect(refusal(["assistant.enabled=true", "assistant.apiKey=k"])).toMatch(
      /needs assistant\.model/,
    );
    expect(refusal(["assistant.enabled=true", "assistant.model=m"])).toMatch(
      /provider=openai needs its key/,
    );
    expect(
      refusal(["assistant.baseUrl=null", "assistant.provider=openai-compatible"], "assistant"),
    ).toMatch(/needs assistant\.baseUrl/);
    expect(
      refusal(
        ["assistant.enabled=true", "assistant.model=m", "assistant.apiKey=k"],
        "existing-secret",
      ),
    ).toMatch(/put ASSISTANT_API_KEY in the Secret chatops-env/);
    expect(refusal(["config.ASSISTANT_MODEL=m"])).toMatch(/values of assistant\.\*/);
    expect(refusal(["assistant.provider=gemini"])).toMatch(/provider/);
    expect(refusal(["assistant.egress.cidrs={10.0.0.1}"])).toMatch(/cidrs/);
    // the key never lands in the ConfigMap, whatever the values say
    expect(refusal(["config.ASSISTANT_API_KEY=k"])).toMatch(/looks like a credential/);
  });

  it("HTTP mode: the Service and the Ingress route Slack to PORT, TLS, and NOTES.txt gives the request URL", () => {
    const objects = objectsOf("http");
    const [ingress] = ofKind(objects, "Ingress");
    expect(at(ingress, "spec.tls.0.hosts")).toEqual(["chatops.example.com"]);
    expect(at(ingress, "spec.rules.0.http.paths.0.path")).toBe("/slack");
    expect(at(ingress, "spec.rules.0.http.paths.0.backend.service.port.name")).toBe("http");
    const [service] = ofKind(objects, "Service");
    const ports = at<Json[]>(service, "spec.ports");
    expect(ports.find((port) => port.name === "http")?.targetPort).toBe("http");
    // Socket Mode exposes no Slack port at all
    expect(
      at<Json[]>(ofKind(objectsOf("default"), "Service")[0], "spec.ports").map((port) => port.name),
    ).toEqual(["metrics"]);
    const notes = helm([
      "install",
      RELEASE,
      CHART,
      "--values",
      join(FIXTURES, "http.yaml"),
      "--dry-run=client",
      "--namespace",
      "bots",
    ]);
    expect(notes).toContain("https://chatops.example.com/slack/events");
    expect(notes).toContain(`helm test ${RELEASE}`);
    const socket = helm([
      "install",
      RELEASE,
      CHART,
      "--values",
      join(FIXTURES, "default.yaml"),
      "--dry-run=client",
    ]);
    expect(socket).toMatch(/Socket Mode.*no request URL/s);
  });

  it("helm test runs `palette-chatops doctor` with the bot's image and settings", () => {
    for (const install of INSTALLS) {
      const objects = objectsOf(install);
      const [pod] = ofKind(objects, "Pod");
      expect(at(pod, "metadata.annotations")).toMatchObject({ "helm.sh/hook": "test" });
      const [doctor] = at<Json[]>(pod, "spec.containers");
      const bot = botContainer(objects);
      expect(doctor!.args).toEqual(["doctor"]);
      expect(doctor!.command).toBeUndefined();
      expect(doctor!.image).toBe(bot.image);
      expect(doctor!.envFrom).toEqual(bot.envFrom);
      expect(doctor!.env).toEqual(bot.env);
      expect(at(pod, "spec.restartPolicy")).toBe("Never");
    }
  });

  it("pulls the image the release workflow pushes, at the chart's appVersion", () => {
    const chart = parseDocument(read("deploy/helm/palette-chatops/Chart.yaml")).toJSON() as Json;
    const image = String(botContainer(objectsOf("default")).image);
    const values = parseDocument(read("deploy/helm/palette-chatops/values.yaml")).toJSON() as Json;
    const repository = at<string>(values, "image.repository");
    expect(image).toBe(`${repository}:${String(chart.appVersion)}`);
    // the workflow pushes ghcr.io/<owner, lower case>/palette-chatops
    expect(read(".github/workflows/release.yml")).toContain(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the workflow's shell expansion, verbatim
      "image=ghcr.io/${GITHUB_REPOSITORY_OWNER,,}/palette-chatops",
    );
    expect(repository).toMatch(/^ghcr\.io\/[a-z0-9-]+\/palette-chatops$/);
  });
});

describe("the Helm chart's files", () => {
  it("Chart.yaml's version and appVersion, package.json's version and CHANGELOG.md's newest release are one", () => {
    const chart = parseDocument(read("deploy/helm/palette-chatops/Chart.yaml")).toJSON() as Json;
    const pkg = JSON.parse(read("package.json")) as { version: string };
    const newest = /^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$/m.exec(read("CHANGELOG.md"))?.[1];
    expect(chart.appVersion).toBe(pkg.version);
    expect(chart.version).toBe(pkg.version);
    expect(newest).toBe(pkg.version);
  });

  it("documents every value of values.yaml with a comment and types it in values.schema.json", () => {
    const document = parseDocument(read("deploy/helm/palette-chatops/values.yaml"));
    const schema = JSON.parse(read("deploy/helm/palette-chatops/values.schema.json")) as Json;
    const resolve = (node: Json): Json =>
      typeof node.$ref === "string"
        ? resolve(at<Json>(schema, node.$ref.replace(/^#\//, "").replaceAll("/", ".")))
        : node;
    const undocumented: string[] = [];
    const untyped: string[] = [];
    const walk = (map: YAMLMap, path: string[], schemaNode: Json, parentComment: boolean): void => {
      map.items.forEach((pair, index) => {
        const key = String(isScalar(pair.key) ? pair.key.value : pair.key);
        const name = [...path, key].join(".");
        // the comment above a map's first key is kept on the map itself
        const commented = Boolean(
          (isScalar(pair.key) && pair.key.commentBefore) ||
            (pair.value as { comment?: string } | null)?.comment ||
            (index === 0 && map.commentBefore),
        );
        const properties = (resolve(schemaNode).properties ?? {}) as Record<string, Json>;
        const child = properties[key];
        if (!child) untyped.push(name);
        // a leaf documents itself, or a parent's comment covers a small group (resources, probes)
        if (isMap(pair.value) && child && resolve(child).properties) {
          walk(pair.value, [...path, key], child, commented || parentComment);
        } else if (!commented && !parentComment) undocumented.push(name);
        if (child && !resolve(child).type && !resolve(child).properties)
          untyped.push(`${name} (no type)`);
      });
    };
    walk(document.contents as YAMLMap, [], schema, false);
    expect(undocumented).toEqual([]);
    expect(untyped).toEqual([]);
    // every object of the schema refuses keys it does not know (a typo fails, not ignored)
    const open: string[] = [];
    const check = (node: Json, path: string) => {
      const resolved = resolve(node);
      if (resolved.properties) {
        if (resolved.additionalProperties !== false) open.push(path || "(root)");
        for (const [key, child] of Object.entries(resolved.properties as Record<string, Json>)) {
          check(child, path ? `${path}.${key}` : key);
        }
      }
    };
    check(schema, "");
    expect(open).toEqual([]);
  });

  it("the old kustomize manifests are gone: the chart is the one source of truth", () => {
    expect(existsSync(join(ROOT, "deploy", "kubernetes"))).toBe(false);
    expect(existsSync(join(ROOT, "test", "support", "kustomize.ts"))).toBe(false);
  });
});
