import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";

/**
 * The release automation cannot run here, so what can be checked is: every file under .github/
 * passes GitHub's schemas in `npm run lint` (and a broken one fails it), CI runs the README's
 * commands on Node 20 and 22, and a release builds both platforms, smoke-runs the image and pushes
 * it with an SBOM and provenance under the name the README gives.
 */

const VALIDATOR = join(process.cwd(), ".ci", "validate-github.mjs");
const scratch = mkdtempSync(join(tmpdir(), "palette-chatops-github-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function validate(root: string) {
  const run = spawnSync(process.execPath, [VALIDATOR, root], { encoding: "utf8" });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

/** a copy of .github/ with one file replaced */
function copyWith(name: string, path: string, text: string): string {
  const root = join(scratch, name);
  cpSync(".github", join(root, ".github"), { recursive: true });
  writeFileSync(join(root, ".github", path), text);
  return root;
}

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
interface Workflow {
  on: Record<string, unknown>;
  permissions?: Record<string, string>;
  concurrency?: { group: string; "cancel-in-progress"?: boolean };
  jobs: Record<string, { steps: Step[]; strategy?: { matrix?: { node?: number[] } } }>;
}
const workflow = (name: string) =>
  parse(readFileSync(join(".github", "workflows", name), "utf8")) as Workflow;
const steps = (w: Workflow) => Object.values(w.jobs).flatMap((job) => job.steps);

describe(".github/", () => {
  it("passes GitHub's schemas as npm run lint checks them", () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { scripts: { lint: string } };
    expect(pkg.scripts.lint).toContain("node .ci/validate-github.mjs");
    const { code, out, err } = validate(process.cwd());
    expect(err).toBe("");
    expect(out).toContain("2 workflows and dependabot.yml valid");
    expect(code).toBe(0);
  });

  it("fails on a broken workflow and on a broken dependabot.yml, naming the file", () => {
    const workflowRoot = copyWith(
      "broken-workflow",
      "workflows/broken.yml",
      "name: Broken\non:\n  pushh: {}\njobs:\n  test:\n    runs-on: ubuntu-latest\n    stepz:\n      - run: npm test\n",
    );
    const broken = validate(workflowRoot);
    expect(broken.code).toBe(1);
    expect(broken.err).toContain("broken.yml: /on must NOT have additional properties (pushh)");
    expect(broken.err).toContain("(stepz)");
    expect(broken.err).not.toContain("ci.yml");

    const notYaml = validate(copyWith("not-yaml", "workflows/ci.yml", "on: [push\njobs: {"));
    expect(notYaml.code).toBe(1);
    expect(notYaml.err).toMatch(/ci\.yml: not YAML/);

    const dependabot = validate(
      copyWith(
        "broken-dependabot",
        "dependabot.yml",
        "version: 2\nupdates:\n  - package-ecosystem: npmm\n    directory: /\n",
      ),
    );
    expect(dependabot.code).toBe(1);
    expect(dependabot.err).toContain("dependabot.yml: /updates/0/package-ecosystem");
  });

  it("CI runs the README's commands on Node 20 and 22, on every push", () => {
    const ci = workflow("ci.yml");
    expect(Object.keys(ci.on).sort()).toEqual(["pull_request", "push"]);
    expect(ci.on.push).toEqual({ branches: ["**"] });
    // a push and its pull request share one group (the branch), so the branch runs once
    expect(ci.concurrency).toEqual({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the workflow's expression, verbatim
      group: "ci-${{ github.head_ref || github.ref_name }}",
      "cancel-in-progress": true,
    });
    const job = ci.jobs.test;
    expect(job?.strategy?.matrix?.node).toEqual([20, 22]);
    const runs = (job?.steps ?? []).flatMap((step) => (step.run ? [step.run] : []));
    expect(runs).toEqual([
      "npm ci --no-audit --no-fund",
      "npm run typecheck",
      "npm run lint",
      "npm test",
    ]);
  });

  it("CI builds the image on every push and smoke-runs it, never pushing (issue 38)", () => {
    const image = workflow("ci.yml").jobs.image;
    const build = image?.steps.find((step) => step.uses?.startsWith("docker/build-push-action"));
    expect(build?.with).toMatchObject({ context: ".", push: false, load: true });
    expect(image?.steps.some((step) => step.uses?.startsWith("docker/login-action"))).toBe(false);
    const smoke = image?.steps.findIndex((step) =>
      step.run?.includes(".github/scripts/smoke.sh image palette-chatops:ci"),
    );
    expect(smoke).toBeGreaterThan(image!.steps.indexOf(build!));
  });

  it("a release pushes the chart as an OCI artifact beside the image and attaches the chart and the image's reference to the GitHub release", () => {
    const all = steps(workflow("release.yml"));
    const runs = all.map((step) => step.run ?? "");
    const at = (text: string) => runs.findIndex((run) => run.includes(text));
    const pushImage = all.findIndex((step) => step.with?.push === true);
    expect(at("helm package deploy/helm/palette-chatops")).toBeGreaterThan(pushImage);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the workflow's shell expansion, verbatim
    expect(runs[at("helm push")]).toContain('"oci://ghcr.io/${owner}/charts"');
    const chartStep = runs[at("helm push")]!;
    expect(chartStep.indexOf("helm push")).toBeGreaterThan(chartStep.indexOf("helm package"));
    const release = runs[at("gh release create")]!;
    expect(release).toMatch(/palette-chatops-\$\{VERSION\}\.tgz" dist-chart\/image\.txt/);
    expect(at("gh release create")).toBeGreaterThan(at("helm push"));
    // a tag that is not the chart's and package.json's version stops the release
    expect(runs[at("GITHUB_REF_NAME#v")]).toMatch(/Chart\.yaml.*package\.json/s);
    // ... before any image is built or pushed, so a mismatched tag leaves nothing behind
    const firstBuild = all.findIndex((step) => step.uses?.startsWith("docker/build-push-action"));
    expect(firstBuild).toBeGreaterThanOrEqual(0);
    expect(at("GITHUB_REF_NAME#v")).toBeLessThan(firstBuild);
  });

  it("a v* tag builds both platforms, smoke-runs the image, and pushes it with an SBOM and provenance", () => {
    const release = workflow("release.yml");
    expect(release.on).toEqual({ push: { tags: ["v*"] } });
    expect(release.permissions).toEqual({
      contents: "write",
      packages: "write",
      "id-token": "write",
      attestations: "write",
    });
    const all = steps(release);
    const uses = all.flatMap((step) => (step.uses ? [step.uses.split("@")[0]] : []));
    for (const action of [
      "docker/setup-qemu-action",
      "docker/setup-buildx-action",
      "docker/login-action",
      "docker/metadata-action",
      "docker/build-push-action",
    ]) {
      expect(uses).toContain(action);
    }
    const login = all.find((step) => step.uses?.startsWith("docker/login-action"));
    expect(login?.with).toMatchObject({
      registry: "ghcr.io",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub's expression syntax
      password: "${{ secrets.GITHUB_TOKEN }}",
    });
    const meta = all.find((step) => step.uses?.startsWith("docker/metadata-action"));
    expect(String(meta?.with?.tags)).toContain("type=semver,pattern={{version}}");

    const builds = all.filter((step) => step.uses?.startsWith("docker/build-push-action"));
    const smokeBuild = builds.find((step) => step.with?.load === true);
    const pushBuild = builds.find((step) => step.with?.push === true);
    expect(smokeBuild?.with?.platforms).toBe("linux/amd64");
    expect(pushBuild?.with).toMatchObject({
      platforms: "linux/amd64,linux/arm64",
      sbom: true,
      provenance: "mode=max",
    });
    const smoke = all.findIndex((step) => step.run?.includes(".github/scripts/smoke.sh image"));
    expect(smoke).toBeGreaterThan(all.indexOf(smokeBuild!));
    expect(smoke).toBeLessThan(all.indexOf(pushBuild!));

    // the published name is the one the README gives
    const naming = all.find((step) => step.run?.includes("GITHUB_REPOSITORY_OWNER"));
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's lower-casing expansion
    expect(naming?.run).toContain("ghcr.io/${GITHUB_REPOSITORY_OWNER,,}/palette-chatops");
    expect(readFileSync("README.md", "utf8")).toContain("ghcr.io/<owner>/palette-chatops");
  });

  it("the smoke script checks /healthz and /readyz against the simulator the image carries", () => {
    const smoke = readFileSync(join(".github", "scripts", "smoke.sh"), "utf8");
    expect(smoke).toContain("simulator --port");
    expect(smoke).toContain("wait_for /healthz");
    expect(smoke).toContain("wait_for /readyz");
    execFileSync("bash", ["-n", join(".github", "scripts", "smoke.sh")]);
  });

  it("the release smoke-runs the image against PostgreSQL too: a service container, DATABASE_URL", () => {
    const release = workflow("release.yml") as {
      jobs: Record<string, { services?: Record<string, { image: string; ports: string[] }> }>;
    };
    const services = Object.values(release.jobs).flatMap((job) =>
      Object.values(job.services ?? {}),
    );
    expect(services.map((service) => service.image.split(":")[0])).toContain("postgres");
    const smokes = steps(workflow("release.yml")).filter((step) =>
      step.run?.includes(".github/scripts/smoke.sh image"),
    );
    expect(smokes.some((step) => /postgres:\/\/\S+@127\.0\.0\.1:5432\//.test(step.run!))).toBe(
      true,
    );
    const smoke = readFileSync(join(".github", "scripts", "smoke.sh"), "utf8");
    expect(smoke).toContain('-e "DATABASE_URL=$database_url"');
    expect(smoke).toContain('"store":"postgres"');
  });

  it("Dependabot watches npm, the Dockerfile and the Actions", () => {
    const config = parse(readFileSync(join(".github", "dependabot.yml"), "utf8")) as {
      updates: Array<{ "package-ecosystem": string }>;
    };
    expect(config.updates.map((update) => update["package-ecosystem"]).sort()).toEqual([
      "docker",
      "github-actions",
      "npm",
    ]);
  });
});
