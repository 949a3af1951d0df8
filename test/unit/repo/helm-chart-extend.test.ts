import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "../../../src/config.ts";
import {
  at,
  botContainer,
  CHART,
  CI_INSTALLS,
  CI_VALUES,
  effectiveEnv,
  FIXTURES,
  helmRefusal,
  type Json,
  modelOf,
  ofKind,
  operatorSecrets,
  parseManifests,
  RELEASE,
  ROOT,
  render,
  renderCi,
  secretObject,
  templateArgs,
  theDeployment,
} from "../../support/chart.ts";
import { startFakeKubeApi } from "../../support/fake-kube-api.ts";
import { HELM_UNAVAILABLE, helm, helmAsync } from "../../support/helm.ts";

/**
 * The chart bends without a fork (issue 38): its extension points, one values file per real
 * install in ci/ (chart-testing's convention) linted, rendered and validated with the real Helm,
 * the NetworkPolicy over the bot and the doctor alike, and a refusal per mistake, raised by the
 * template that knows.
 */

const noHelm = HELM_UNAVAILABLE !== undefined;

const podSpecs = (objects: Json[]): Json[] => [
  at<Json>(theDeployment(objects), "spec.template.spec"),
  ...ofKind(objects, "Pod").map((pod) => at<Json>(pod, "spec")),
];
const containersOf = (objects: Json[]): Json[] =>
  podSpecs(objects).flatMap((spec) => spec.containers as Json[]);
const policyOf = (objects: Json[]): Json => {
  const [policy, ...more] = ofKind(objects, "NetworkPolicy");
  if (!policy || more.length > 0) throw new Error("not exactly one NetworkPolicy");
  return policy;
};
const selects = (selector: Json, labels: Json): boolean =>
  Object.entries(selector).every(([key, value]) => labels[key] === value);
const credentials = [
  "secret.values.SLACK_BOT_TOKEN=xoxb-fixture-bot-token",
  "secret.values.SLACK_APP_TOKEN=xapp-fixture-app-token",
  "secret.values.PALETTE_API_KEY=fixture-palette-api-key",
];
const sets = (list: string[]) => list.flatMap((set) => ["--set", set]);

describe("the YAML Helm renders is read with the parser's errors", () => {
  it("a duplicate key fails instead of the last one silently winning", () => {
    const duplicate = [
      "apiVersion: v1",
      "kind: Pod",
      "metadata:",
      "  name: doctor",
      "  labels:",
      "    app.kubernetes.io/component: bot",
      "    app.kubernetes.io/component: doctor",
    ].join("\n");
    expect(() => parseManifests(duplicate)).toThrow(/does not parse: .*unique/i);
    expect(parseManifests("---\nkind: A\n---\nkind: B\n")).toEqual([{ kind: "A" }, { kind: "B" }]);
  });
});

describe.skipIf(noHelm)("the chart's ci/ values files, one per real install", () => {
  it("are the five cases: OpenShift, a proxy with a private CA, HA on PostgreSQL, HTTP with Ingress, the assistant", () => {
    expect(CI_INSTALLS).toEqual([
      "assistant-values.yaml",
      "ha-postgres-values.yaml",
      "http-ingress-values.yaml",
      "openshift-values.yaml",
      "proxy-ca-values.yaml",
    ]);
  });

  it("each passes helm lint --strict and renders only objects valid for Kubernetes", async () => {
    for (const file of CI_INSTALLS) {
      const output = helm(["lint", "--strict", CHART, "--values", join(CI_VALUES, file)]);
      expect(output, file).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
      for (const object of renderCi(file)) {
        const label = `${file}: ${String(object.kind)} ${at(object, "metadata.name")}`;
        const Model = await modelOf(object);
        expect(Model, `${label}: a kind Kubernetes knows`).toBeDefined();
        expect(() => new Model!(object).validate(), label).not.toThrow();
      }
    }
  });

  it("OpenShift: no UID, GID or fsGroup anywhere (restricted-v2 assigns them), the rest of the restricted profile kept", () => {
    const objects = renderCi("openshift-values.yaml");
    for (const spec of podSpecs(objects)) {
      const pod = spec.securityContext as Json;
      expect(pod).toEqual({ runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
      expect(spec.serviceAccountName).toBe(`${RELEASE}-palette-chatops`);
      expect(spec.automountServiceAccountToken).toBe(false);
    }
    for (const container of containersOf(objects)) {
      expect(container.securityContext).toEqual({
        runAsNonRoot: true,
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ["ALL"] },
      });
    }
    const [account] = ofKind(objects, "ServiceAccount");
    expect(at(account, "metadata.name")).toBe(`${RELEASE}-palette-chatops`);
    expect(account!.automountServiceAccountToken).toBe(false);
    // DNS: openshift-dns's pods on 5353 only
    const [dns] = at<Json[]>(policyOf(objects), "spec.egress");
    expect(dns).toEqual({
      ports: [
        { port: 5353, protocol: "UDP" },
        { port: 5353, protocol: "TCP" },
      ],
      to: [
        {
          namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "openshift-dns" } },
          podSelector: { matchLabels: { "dns.operator.openshift.io/daemonset-dns": "default" } },
        },
      ],
    });
    // the default, for contrast: uid, gid and fsGroup 1000 as before
    const plain = at<Json>(theDeployment(render("default")), "spec.template.spec.securityContext");
    expect(plain).toMatchObject({ runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000 });
  });

  it("a proxy with a private CA: the bundle mounted and named in NODE_EXTRA_CA_CERTS, the proxy variables and their egress, in the bot and the doctor", () => {
    const objects = renderCi("proxy-ca-values.yaml");
    for (const spec of podSpecs(objects)) {
      expect(spec.volumes).toContainEqual({
        name: "ca-bundle",
        configMap: {
          name: "corp-trusted-ca",
          items: [{ key: "ca-bundle.crt", path: "ca-bundle.crt" }],
        },
      });
      expect(spec.priorityClassName).toBe("business-critical");
      expect(spec.tolerations).toEqual([
        { key: "dedicated", operator: "Equal", value: "bots", effect: "NoSchedule" },
      ]);
      const [container] = spec.containers as Json[];
      expect(container!.volumeMounts).toContainEqual({
        name: "ca-bundle",
        mountPath: "/etc/palette-chatops/ca",
        readOnly: true,
      });
      expect((container!.env as Json[]).map((variable) => [variable.name, variable.value])).toEqual(
        [
          ["NODE_EXTRA_CA_CERTS", "/etc/palette-chatops/ca/ca-bundle.crt"],
          ["HTTPS_PROXY", "http://proxy.corp.example:3128"],
          ["HTTP_PROXY", "http://proxy.corp.example:3128"],
          ["NO_PROXY", ".cluster.local,.svc"],
        ],
      );
    }
    // the environment the bot's process gets, as Kubernetes builds it
    const env = effectiveEnv(objects);
    expect(env.NODE_EXTRA_CA_CERTS).toBe("/etc/palette-chatops/ca/ca-bundle.crt");
    expect(env.HTTPS_PROXY).toBe("http://proxy.corp.example:3128");
    expect(loadConfig(env, { requireSlack: true }).palette.apiUrl).toBe(
      "https://palette.corp.example:8443/",
    );
    const egress = at<Json[]>(policyOf(objects), "spec.egress");
    expect(egress).toContainEqual({
      ports: [
        { port: 443, protocol: "TCP" },
        { port: 8443, protocol: "TCP" },
      ],
    });
    expect(egress.at(-1)).toEqual({
      ports: [{ port: 3128, protocol: "TCP" }],
      to: [{ ipBlock: { cidr: "10.20.0.10/32" } }],
    });
    // the CA from a Secret instead
    const fromSecret = render("default", [], ["caBundle.secret=corp-ca"]);
    expect(at<Json[]>(theDeployment(fromSecret), "spec.template.spec.volumes")).toContainEqual({
      name: "ca-bundle",
      secret: { secretName: "corp-ca", items: [{ key: "ca.crt", path: "ca.crt" }] },
    });
  });

  it("HA on PostgreSQL: zone spread over the bot's own pods, a startup probe, pod labels and annotations, the database by selector", () => {
    const objects = renderCi("ha-postgres-values.yaml");
    const deployment = theDeployment(objects);
    const template = at<Json>(deployment, "spec.template");
    const botLabels = at<Json>(deployment, "spec.selector.matchLabels");
    expect(at(template, "spec.topologySpreadConstraints")).toEqual([
      {
        maxSkew: 1,
        topologyKey: "topology.kubernetes.io/zone",
        whenUnsatisfiable: "ScheduleAnyway",
        labelSelector: { matchLabels: botLabels },
      },
    ]);
    expect(at(template, "metadata.labels")).toMatchObject({ team: "platform", ...botLabels });
    expect(at(template, "metadata.annotations")).toMatchObject({
      "backup.velero.io/backup-volumes": "",
    });
    const container = botContainer(objects);
    expect(container.startupProbe).toEqual({
      httpGet: { path: "/healthz", port: "metrics" },
      periodSeconds: 5,
      timeoutSeconds: 3,
      failureThreshold: 60,
    });
    expect(botContainer(render("default")).startupProbe).toBeUndefined();
    const env = effectiveEnv(objects, [
      secretObject("chatops-db-app", { uri: "postgres://bot:x@chatops-db-rw:5432/app" }),
      secretObject("palette-chatops", {
        SLACK_BOT_TOKEN: "xoxb-fixture-bot-token",
        SLACK_APP_TOKEN: "xapp-fixture-app-token",
        PALETTE_API_KEY: "fixture-palette-api-key",
      }),
    ]);
    expect(loadConfig(env, { requireSlack: true }).stateDb.kind).toBe("postgres");
    expect(at<Json[]>(policyOf(objects), "spec.egress")).toContainEqual({
      ports: [{ port: 5432, protocol: "TCP" }],
      to: [{ podSelector: { matchLabels: { "cnpg.io/cluster": "chatops-db" } } }],
    });
    // a constraint that names its own selector keeps it
    const own = theDeployment(
      render(
        "ha",
        [],
        [
          "topologySpreadConstraints[0].maxSkew=2",
          "topologySpreadConstraints[0].topologyKey=kubernetes.io/hostname",
          "topologySpreadConstraints[0].whenUnsatisfiable=DoNotSchedule",
          "topologySpreadConstraints[0].labelSelector.matchLabels.app=other",
        ],
      ),
    );
    expect(at(own, "spec.template.spec.topologySpreadConstraints.0.labelSelector")).toEqual({
      matchLabels: { app: "other" },
    });
  });

  it("HTTP with Ingress: Slack's port only from the ingress controller's namespace, metrics only from monitoring", () => {
    const policy = policyOf(renderCi("http-ingress-values.yaml"));
    expect(at(policy, "spec.ingress")).toEqual([
      {
        ports: [{ port: "http", protocol: "TCP" }],
        from: [
          {
            namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "ingress-nginx" } },
          },
        ],
      },
      {
        ports: [{ port: "metrics", protocol: "TCP" }],
        from: [
          { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } } },
        ],
      },
    ]);
  });

  it("the assistant: the model server's pods selected by namespace and label, not a Service CIDR", () => {
    const objects = renderCi("assistant-values.yaml");
    expect(at<Json[]>(policyOf(objects), "spec.egress")).toContainEqual({
      ports: [{ port: 8000, protocol: "TCP" }],
      to: [
        {
          namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "ai" } },
          podSelector: { matchLabels: { "app.kubernetes.io/name": "vllm" } },
        },
      ],
    });
  });
});

describe.skipIf(noHelm)("the NetworkPolicy, whenever networkPolicy.enabled", () => {
  it("holds one replica too, and the doctor under the same policy as the bot (its labels once each)", () => {
    const objects = render("default");
    const policy = policyOf(objects);
    const selector = at<Json>(policy, "spec.podSelector.matchLabels");
    const bot = at<Json>(theDeployment(objects), "spec.template.metadata.labels");
    const [doctor] = ofKind(objects, "Pod");
    const doctorLabels = at<Json>(doctor, "metadata.labels");
    expect(selects(selector, bot)).toBe(true);
    expect(selects(selector, doctorLabels)).toBe(true);
    expect(doctorLabels["app.kubernetes.io/component"]).toBe("doctor");
    // the bot's Service and PodDisruptionBudget do not take the doctor for a bot
    const [service] = ofKind(objects, "Service");
    expect(selects(at<Json>(service, "spec.selector"), doctorLabels)).toBe(false);
    expect(ofKind(render("default", [], ["networkPolicy.enabled=false"]), "NetworkPolicy")).toEqual(
      [],
    );
  });

  it("DNS to the cluster's DNS pods only; no database port on SQLite; extraEgress and extraIngress appended", () => {
    const objects = render(
      "default",
      [],
      [
        "networkPolicy.extraEgress[0].ports[0].port=8443",
        "networkPolicy.extraEgress[0].to[0].ipBlock.cidr=192.0.2.10/32",
        "networkPolicy.extraIngress[0].ports[0].port=9999",
      ],
    );
    const policy = policyOf(objects);
    const egress = at<Json[]>(policy, "spec.egress");
    for (const rule of egress) {
      const ports = (rule.ports as Json[]).map((port) => port.port);
      if (ports.includes(53)) {
        expect(rule.to).toEqual([
          {
            namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "kube-system" } },
            podSelector: { matchLabels: { "k8s-app": "kube-dns" } },
          },
        ]);
      }
      expect(ports, "SQLite: no database egress").not.toContain(5432);
    }
    expect(egress.at(-1)).toEqual({
      ports: [{ port: 8443 }],
      to: [{ ipBlock: { cidr: "192.0.2.10/32" } }],
    });
    expect(at<Json[]>(policy, "spec.ingress").at(-1)).toEqual({ ports: [{ port: 9999 }] });
  });
});

describe.skipIf(noHelm)("the extension points", () => {
  it("extraEnv, extraEnvFrom, extraVolumes and extraVolumeMounts reach the bot and the doctor, after the chart's own", () => {
    const objects = render(
      "default",
      [],
      [
        "extraEnv[0].name=NODE_OPTIONS",
        "extraEnv[0].value=--max-old-space-size=256",
        "extraEnvFrom[0].secretRef.name=more-settings",
        "extraVolumes[0].name=scratch",
        "extraVolumes[0].emptyDir.medium=Memory",
        "extraVolumeMounts[0].name=scratch",
        "extraVolumeMounts[0].mountPath=/scratch",
      ],
    );
    for (const spec of podSpecs(objects)) {
      expect(spec.volumes).toContainEqual({ name: "scratch", emptyDir: { medium: "Memory" } });
      const [container] = spec.containers as Json[];
      expect((container!.envFrom as Json[]).map((source) => JSON.stringify(source)).at(-1)).toBe(
        JSON.stringify({ secretRef: { name: "more-settings" } }),
      );
      expect(container!.env).toEqual([{ name: "NODE_OPTIONS", value: "--max-old-space-size=256" }]);
      expect(container!.volumeMounts).toContainEqual({ name: "scratch", mountPath: "/scratch" });
    }
    // env wins over the image's ENV and the Secret: the operator's own NODE_OPTIONS is in force
    const env = effectiveEnv(objects, [secretObject("more-settings", { LOG_LEVEL: "warn" })]);
    expect(env.NODE_OPTIONS).toBe("--max-old-space-size=256");
    expect(env.LOG_LEVEL).toBe("warn");
  });

  it("securityContext and podSecurityContext as given; serviceAccount.name names an existing account", () => {
    const objects = render(
      "default",
      [],
      [
        "podSecurityContext.runAsUser=2000",
        "podSecurityContext.fsGroupChangePolicy=OnRootMismatch",
        "securityContext.readOnlyRootFilesystem=true",
        "serviceAccount.name=bots",
      ],
    );
    for (const spec of podSpecs(objects)) {
      expect(spec.securityContext).toMatchObject({
        runAsUser: 2000,
        fsGroupChangePolicy: "OnRootMismatch",
      });
      expect(spec.serviceAccountName).toBe("bots");
    }
    expect(ofKind(objects, "ServiceAccount")).toEqual([]);
    // neither created nor named: the namespace's default, as before
    for (const spec of podSpecs(render("default"))) expect(spec.serviceAccountName).toBeUndefined();
  });
});

describe.skipIf(noHelm)("a refusal per mistake, from the template that knows", () => {
  const withDefault = (list: string[]) => [
    "--values",
    join(FIXTURES, "default.yaml"),
    ...sets(list),
  ];

  it("no credentials at all: fails in secret.yaml, naming what is missing and the two ways to give it", () => {
    const message = helmRefusal([]);
    expect(message).toContain("templates/secret.yaml");
    expect(message).toMatch(
      /no credentials for the bot: SLACK_BOT_TOKEN, SLACK_APP_TOKEN, PALETTE_API_KEY/,
    );
    expect(message).toContain("secret.existingSecret");
    expect(message).toContain("kubectl create secret generic palette-chatops --from-env-file=.env");
    expect(message).toContain("secret.values");
    // HTTP mode asks for the signing secret instead of the app token
    expect(
      helmRefusal(
        sets([
          "slack.mode=http",
          "secret.values.SLACK_BOT_TOKEN=xoxb-1",
          "secret.values.PALETTE_API_KEY=k",
        ]),
      ),
    ).toMatch(/SLACK_SIGNING_SECRET missing/);
    // email, org and password stand for the API key
    expect(
      helmRefusal(
        sets([
          "secret.values.SLACK_BOT_TOKEN=xoxb-1",
          "secret.values.SLACK_APP_TOKEN=xapp-1",
          "secret.values.PALETTE_EMAIL=a@example.com",
          "secret.values.PALETTE_ORG=org",
          "secret.values.PALETTE_PASSWORD=p",
        ]),
      ),
    ).toBe("");
    // the credentials in the operator's Secret, or in a Secret of extraEnvFrom: no check
    expect(helmRefusal(sets(["secret.existingSecret=chatops-env"]))).toBe("");
    expect(helmRefusal(sets(["extraEnvFrom[0].secretRef.name=from-vault"]))).toBe("");
    expect(helmRefusal(sets(credentials))).toBe("");
  });

  it("secret.values beside secret.existingSecret: refused, naming the keys that would be lost", () => {
    const message = helmRefusal(
      sets(["secret.existingSecret=chatops-env", "secret.values.PALETTE_PROJECTS=p1"]),
    );
    expect(message).toContain("templates/secret.yaml");
    expect(message).toMatch(
      /secret\.values is not used with secret\.existingSecret.*PALETTE_PROJECTS/,
    );
    expect(message).toContain("chatops-env");
  });

  it("each earlier refusal names its own template, not the Deployment's checksum line", () => {
    const cases: Array<[string[], string, RegExp]> = [
      [["replicaCount=2"], "templates/deployment.yaml", /needs PostgreSQL/],
      [["config.PALETTE_API_KEY=x"], "templates/configmap.yaml", /looks like a credential/],
      [["config.ASSISTANT_MODEL=m"], "templates/configmap.yaml", /values of assistant/],
      [["config.NODE_EXTRA_CA_CERTS=/x"], "templates/configmap.yaml", /caBundle/],
      [
        ["assistant.enabled=true", "assistant.apiKey=k"],
        "templates/configmap.yaml",
        /needs assistant\.model/,
      ],
      [["secret.values.DATABASE_URL=postgres://x"], "templates/secret.yaml", /database\.url/],
      [["ingress.enabled=true"], "templates/ingress.yaml", /needs slack\.mode=http/],
    ];
    for (const [list, template, reason] of cases) {
      const message = helmRefusal(withDefault(list));
      expect(message, list.join(" ")).toMatch(reason);
      expect(message, list.join(" ")).toContain(`(palette-chatops/${template}:`);
    }
  });

  it("list items are typed: a toleration, a peer, an env entry, a volume or a spread constraint of the wrong shape", () => {
    const cases: Array<[string[], RegExp]> = [
      [["tolerations[0].operator=Maybe"], /tolerations\/0\/operator/],
      [["tolerations[0].keys=x"], /tolerations\/0.*additional properties 'keys'/],
      [["networkPolicy.httpFrom[0].ipBlok.cidr=10.0.0.0/8"], /httpFrom\/0.*'ipBlok'/],
      [["networkPolicy.httpFrom[0].ipBlock.cidr=10.0.0.0"], /httpFrom\/0\/ipBlock\/cidr/],
      [["networkPolicy.extraEgress[0].too[0].ipBlock.cidr=10.0.0.0/8"], /extraEgress\/0.*'too'/],
      [["extraEnv[0].value=x"], /extraEnv\/0.*name/],
      [["extraVolumes[0].name=x"], /extraVolumes\/0/],
      [["extraVolumeMounts[0].name=x", "extraVolumeMounts[0].mountPath=rel"], /mountPath/],
      [["topologySpreadConstraints[0].maxSkew=1"], /topologySpreadConstraints\/0/],
      [["caBundle.configMap=a", "caBundle.secret=b"], /caBundle/],
      [["podSecurityContext.runAsUsr=5"], /'runAsUsr' not allowed/],
    ];
    for (const [list, reason] of cases) {
      expect(helmRefusal(withDefault(list)), list.join(" ")).toMatch(reason);
    }
  });
});

describe.skipIf(noHelm)("the Secret's checksum, with a cluster to look the Secret up in", () => {
  it("moves when the operator's Secret changes: Helm's lookup reads it at install and upgrade", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kube-api-"));
    const api = await startFakeKubeApi(dir);
    try {
      const checksum = async () =>
        at<string>(
          theDeployment(
            parseManifests(
              await helmAsync([
                ...templateArgs(join(FIXTURES, "existing-secret.yaml")),
                "--dry-run=server",
                "--disable-openapi-validation",
                "--kubeconfig",
                api.kubeconfig,
              ]),
            ),
          ),
          "spec.template.metadata.annotations.checksum/secret",
        );
      const offline = at<string>(
        theDeployment(render("existing-secret")),
        "spec.template.metadata.annotations.checksum/secret",
      );
      api.setSecret("bots", "chatops-env", { SLACK_BOT_TOKEN: "xoxb-before-rotation" });
      const before = await checksum();
      expect(api.requests).toContain("/api/v1/namespaces/bots/secrets/chatops-env");
      api.setSecret("bots", "chatops-env", { SLACK_BOT_TOKEN: "xoxb-after-rotation" });
      const after = await checksum();
      expect(before).toMatch(/^[0-9a-f]{64}$/);
      expect(after).not.toBe(before);
      // without a cluster (helm template, Argo CD) the lookup is empty: docs/install.md says
      // kubectl rollout restart there
      expect(offline).not.toBe(before);
      expect(await checksum()).toBe(after);
    } finally {
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(noHelm)("the Secret's checksum", () => {
  it("moves with the chart's Secret, and with existingSecret renders from Helm's lookup (empty without a cluster)", () => {
    const checksum = (objects: Json[]) =>
      at<string>(theDeployment(objects), "spec.template.metadata.annotations.checksum/secret");
    const before = checksum(render("default"));
    const rotated = checksum(
      render("default", ["secret.values.SLACK_BOT_TOKEN=xoxb-rotated-bot-token"]),
    );
    expect(before).toMatch(/^[0-9a-f]{64}$/);
    expect(rotated).not.toBe(before);
    // with the operator's Secret, `helm template` has no cluster: lookup answers nothing and the
    // checksum is the same whatever the Secret holds (docs/install.md: kubectl rollout restart)
    const own = checksum(render("existing-secret"));
    expect(own).toMatch(/^[0-9a-f]{64}$/);
    expect(effectiveEnv(render("existing-secret"), operatorSecrets()).SLACK_BOT_TOKEN).toBe(
      "xoxb-fixture-bot-token",
    );
  });
});

describe("one repository URL, everywhere a platform team looks", () => {
  it("package.json, Chart.yaml, the README and the image's default name agree", () => {
    const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
    const pkg = JSON.parse(read("package.json")) as {
      homepage?: string;
      repository?: { url?: string };
      bugs?: { url?: string };
    };
    const repository = "https://github.com/palette-chatops/palette-chatops";
    expect(pkg.repository?.url).toBe(`git+${repository}.git`);
    expect(pkg.homepage).toBe(`${repository}#readme`);
    expect(pkg.bugs?.url).toBe(`${repository}/issues`);
    const chart = parse(read("deploy/helm/palette-chatops/Chart.yaml")) as Json;
    expect(chart.home).toBe(repository);
    expect(chart.sources).toContain(repository);
    expect(chart.maintainers).toEqual([{ name: expect.any(String), url: repository }]);
    expect(read("README.md")).toContain(repository);
    const owner = new URL(repository).pathname.split("/")[1];
    const values = parse(read("deploy/helm/palette-chatops/values.yaml")) as Json;
    expect(at(values, "image.repository")).toBe(`ghcr.io/${owner}/palette-chatops`);
  });
});

describe("the chart's README, generated from values.yaml", () => {
  const generator = join(ROOT, "scripts", "chart-readme.mjs");
  const check = (path?: string) =>
    spawnSync(process.execPath, [generator, "--check", ...(path ? [path] : [])], {
      encoding: "utf8",
    });

  it("is up to date, with a row for every value", () => {
    const run = check();
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const readme = readFileSync(join(CHART, "README.md"), "utf8");
    for (const key of [
      "extraEnv",
      "caBundle.configMap",
      "openshift",
      "serviceAccount.create",
      "networkPolicy.dns.ports",
      "networkPolicy.extraEgress",
      "startupProbe.enabled",
      "topologySpreadConstraints",
    ]) {
      expect(readme, key).toContain(`| \`${key}\` |`);
    }
  });

  it("fails the check, naming the command that fixes it, when it is stale", () => {
    const dir = mkdtempSync(join(tmpdir(), "chart-readme-"));
    try {
      const stale = join(dir, "README.md");
      writeFileSync(
        stale,
        readFileSync(join(CHART, "README.md"), "utf8").replace("| `openshift` |", "| `openshft` |"),
      );
      const run = check(stale);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain("is stale");
      expect(run.stderr).toContain("node scripts/chart-readme.mjs");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
