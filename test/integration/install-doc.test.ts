import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { BOT_SCOPES } from "../../src/app/doctor-slack.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import {
  at,
  botContainer,
  type Json,
  modelOf,
  ofKind,
  parseManifests,
  ROOT,
  secretObject,
} from "../support/chart.ts";
import { type ContainerSpec, containerEnv } from "../support/container-env.ts";
import { imageEnv } from "../support/dockerfile.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import { HELM_UNAVAILABLE, helm } from "../support/helm.ts";
import { spawnCli } from "../support/start-process-harness.ts";

/**
 * docs/install.md followed as written, as far as a machine without Docker or a cluster goes
 * (issue 38): its values file and its commands taken from the page itself, `helm install` done
 * as `helm template` (the same render, without a cluster), `kubectl create secret
 * --from-env-file` done as kubectl builds that Secret, every object validated against
 * Kubernetes' schemas, and `helm test`'s doctor pod run as its container would run: the image's
 * ENV, then its envFrom and env, `palette-chatops doctor`, against the Palette simulator and a
 * fake Slack. Only the network's addresses and the `<project uid>` placeholder are filled in.
 */

const noHelm = HELM_UNAVAILABLE !== undefined;
const page = readFileSync(join(ROOT, "docs", "install.md"), "utf8");
const chart = parse(
  readFileSync(join(ROOT, "deploy", "helm", "palette-chatops", "Chart.yaml"), "utf8"),
) as Json;
const BOT_TOKEN = "xoxb-install-doc-bot-token";
const APP_TOKEN = "xapp-install-doc-app-token";

/** the fenced blocks of one language under a heading of the page, in order */
function blocks(heading: string, language: string): string[] {
  const start = page.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`docs/install.md has no heading ${heading}`);
  const level = heading.split(" ")[0]!;
  const rest = page.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n${level} `));
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, "g"))].map(
    (match) => match[1]!,
  );
}

/** the Secret `kubectl create secret generic NAME --from-env-file=FILE` makes: KEY=VALUE lines */
function secretFromEnvFile(name: string, text: string): Json {
  const pairs: Record<string, string> = {};
  for (const line of text.split("\n")) {
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const equals = line.indexOf("=");
    pairs[line.slice(0, equals).trimStart()] = line.slice(equals + 1);
  }
  return secretObject(name, pairs);
}

const dir = mkdtempSync(join(tmpdir(), "install-doc-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(noHelm)("docs/install.md, followed as written", () => {
  let sim: RunningSimulator;
  let slack: FakeSlack;

  beforeAll(async () => {
    sim = await startSimulator({ clusters: 4, projects: 2, seed: 38 });
    slack = await startFakeSlack();
    slack.on("auth.test", (call) =>
      String(call.headers.authorization) === `Bearer ${BOT_TOKEN}`
        ? {
            headers: { "x-oauth-scopes": BOT_SCOPES.join(",") },
            body: { ok: true, team: "Test", user: "palette", team_id: "T1", user_id: "UBOT" },
          }
        : { body: { ok: false, error: "invalid_auth" } },
    );
    slack.on("apps.connections.open", (call) =>
      String(call.headers.authorization) === `Bearer ${APP_TOKEN}`
        ? { body: { ok: true, url: "wss://wss-primary.slack.com/link/?ticket=install-doc" } }
        : { body: { ok: false, error: "invalid_auth" } },
    );
  });

  afterAll(async () => {
    await slack?.close();
    await sim?.close();
  });

  it("the image section names the chart's appVersion and the values that point the chart at a built image", () => {
    const [check] = blocks("## The image: use the published one, or build and push your own", "sh");
    expect(check).toContain(`ghcr.io/palette-chatops/palette-chatops:${String(chart.appVersion)}`);
    const build = blocks(
      "## The image: use the published one, or build and push your own",
      "sh",
    )[1]!;
    const tag = /docker build -t (\S+) \./.exec(build)?.[1];
    expect(tag).toBeDefined();
    expect(build).toContain(`docker push ${tag}`);
    expect(build).toContain("git clone https://github.com/palette-chatops/palette-chatops.git");
    const [imageValues] = blocks(
      "## The image: use the published one, or build and push your own",
      "yaml",
    );
    writeFileSync(join(dir, "image.yaml"), imageValues!);
    writeFileSync(join(dir, "credentials.yaml"), "secret:\n  existingSecret: palette-chatops\n");
    const objects = parseManifests(
      helm([
        "template",
        "palette-chatops",
        "deploy/helm/palette-chatops",
        "-f",
        join(dir, "credentials.yaml"),
        "-f",
        join(dir, "image.yaml"),
      ]),
    );
    // the tag built and pushed is the one the chart pulls: the appVersion
    expect(botContainer(objects).image).toBe(tag);
  });

  it("the quick start renders valid objects, and helm test's doctor passes with the environment its pod gets", async () => {
    const [values] = blocks("## From a values file to a bot answering in Slack", "yaml");
    const [commands] = blocks("## From a values file to a bot answering in Slack", "sh");
    const project = sim.control.projects()[0]!;
    writeFileSync(join(dir, "values.yaml"), values!.replace("<project uid>", project));
    const lines = commands!.split("\n").filter((line) => !line.trimStart().startsWith("#"));
    const create = lines.find((line) => line.startsWith("kubectl create secret generic"))!;
    const install = lines.find((line) => line.startsWith("helm install"))!;
    expect(lines.some((line) => line.startsWith("helm test palette-chatops"))).toBe(true);
    const secretName = /generic (\S+) --from-env-file=\.env/.exec(create)?.[1];
    expect(secretName).toBe("palette-chatops");

    // helm install RELEASE CHART -f values.yaml, run in the clone, rendered without a cluster
    const [, , release, chartPath, ...rest] = install.replace(/\s+#.*$/, "").split(/\s+/);
    expect(rest).toEqual(["-f", "values.yaml"]);
    // in the clone (ROOT), with the values file written beside it (here: in a scratch directory)
    const objects = parseManifests(
      helm(["template", release!, chartPath!, "-f", join(dir, "values.yaml")], { cwd: ROOT }),
    );
    for (const object of objects) {
      const Model = await modelOf(object);
      expect(Model, String(object.kind)).toBeDefined();
      expect(() => new Model!(object).validate(), String(object.kind)).not.toThrow();
    }
    expect(ofKind(objects, "Secret")).toEqual([]);

    // the .env the page describes, made into the Secret the first command creates
    const env = [
      `SLACK_BOT_TOKEN=${BOT_TOKEN}`,
      `SLACK_APP_TOKEN=${APP_TOKEN}`,
      `PALETTE_API_KEY=${sim.credentials.apiKey}`,
    ].join("\n");
    const secret = secretFromEnvFile(secretName!, env);

    // helm test: the doctor pod's container, its environment as Kubernetes builds it
    const [pod] = ofKind(objects, "Pod");
    expect(at(pod, "metadata.annotations")).toMatchObject({ "helm.sh/hook": "test" });
    const [container] = at<Array<ContainerSpec & Json>>(pod, "spec.containers");
    expect(container!.args).toEqual(["doctor"]);
    const podEnv = containerEnv(imageEnv(join(ROOT, "Dockerfile")), container!, [
      ...objects,
      secret,
    ]);
    const volume = join(dir, "data");
    const doctor = spawnCli(["doctor"], {
      ...Object.fromEntries(
        Object.entries(podEnv).map(([name, value]) => [
          name,
          value.replace(/^\/data\//, `${volume}/`),
        ]),
      ),
      // the network's part: where Palette and Slack are
      PALETTE_API_URL: sim.url,
      SLACK_API_URL: slack.apiUrl,
    });
    const exit = await doctor.exited;
    expect(doctor.stdout(), doctor.output()).toMatch(/^PASS {2}slack\.auth/m);
    expect(doctor.stdout(), doctor.output()).toMatch(/^PASS {2}palette\./m);
    expect(exit.code, doctor.output()).toBe(0);
    expect(doctor.output()).not.toContain(BOT_TOKEN);
    expect(doctor.output()).not.toContain(sim.credentials.apiKey);
  }, 120_000);
});

describe("docs/install.md: from one replica to two", () => {
  // review finding 1: envFrom gave a CloudNativePG Secret's `uri` key as a variable `uri`, never
  // DATABASE_URL, and a bare pod left `kubectl wait` to sit out 300 s silently on a failure
  it("runs migrate-store as a Job given DATABASE_URL by the Secret's key, and follows its log", () => {
    const [script] = blocks("#### From one replica to two", "sh");
    const manifest = /<<'YAML'\n([\s\S]*?)\nYAML\n/.exec(script!)?.[1];
    expect(manifest, "the helper's manifest in a <<'YAML' here-document").toBeDefined();
    const job = parse(manifest!) as Json;
    expect(at(job, "kind")).toBe("Job");
    expect(at(job, "spec.backoffLimit")).toBe(0);
    const container = at(job, "spec.template.spec.containers.0") as Json;
    expect(at(container, "args")).toEqual([
      "migrate-store",
      "--from",
      "/data/palette-chatops.sqlite",
    ]);
    expect((container as Record<string, unknown>).envFrom).toBeUndefined();
    const secret = /--set database\.existingSecret=(\S+)/.exec(script!)?.[1];
    const values = parse(
      readFileSync(join(ROOT, "deploy", "helm", "palette-chatops", "values.yaml"), "utf8"),
    ) as Json;
    expect(at(container, "env")).toEqual([
      {
        name: "DATABASE_URL",
        valueFrom: {
          secretKeyRef: { name: secret, key: at(values, "database.secretKey") },
        },
      },
    ]);
    expect(script).toContain("kubectl logs -f job/palette-chatops-migrate --pod-running-timeout=");
    expect(script).not.toMatch(/kubectl wait [^\n]*palette-chatops-migrate/);
  });
});
