import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { imageNodeFlags, imageNodeOptions } from "../../../bench/image-node-options.ts";
import {
  envPairs,
  imageEnv,
  parseDockerfile,
  type Stage,
  stagesOf,
} from "../../support/dockerfile.ts";

/**
 * Static checks of the Dockerfile (no Docker daemon needed): the rules an image reviewer would
 * apply, checked on every test run so a refactor cannot quietly break the image.
 */

const ROOT = process.cwd();

function copySources(args: string): { from?: string; sources: string[]; dest: string } {
  const words = args.split(/\s+/);
  const flags = words.filter((word) => word.startsWith("--"));
  const paths = words.filter((word) => !word.startsWith("--"));
  const from = flags.find((flag) => flag.startsWith("--from="))?.slice("--from=".length);
  return { from, sources: paths.slice(0, -1), dest: paths.at(-1)! };
}

/** A minimal .dockerignore matcher: exact names, `dir`, and `*` globs on the first segment. */
function ignoredBy(patterns: string[], path: string): boolean {
  const clean = path.replace(/^\.\//, "").replace(/\/$/, "");
  return patterns.some((pattern) => {
    const regex = new RegExp(
      `^${pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}(/.*)?$`,
    );
    return regex.test(clean);
  });
}

const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");
const instructions = parseDockerfile(dockerfile);
const stages = stagesOf(instructions);
const finalStage = stages.at(-1)!;
const dockerignore = readFileSync(join(ROOT, ".dockerignore"), "utf8")
  .split("\n")
  .map((line) => line.trim())
  .filter((line) => line !== "" && !line.startsWith("#"));

describe("Dockerfile", () => {
  it("is multi-stage and every stage starts from Node 22 or an earlier stage", () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const names = new Set<string>();
    for (const stage of stages) {
      if (!names.has(stage.image)) expect(stage.image).toMatch(/^node:22(\.|-|$)/);
      if (stage.name) names.add(stage.name);
    }
    // the final stage's root image is the slim one, pinned by its digest
    let root = finalStage.image;
    while (names.has(root)) root = stages.find((stage) => stage.name === root)!.image;
    expect(root).toMatch(/^node:22-bookworm-slim@sha256:[0-9a-f]{64}$/);
    // every registry image is the same pinned one (the toolchain builds on it)
    for (const stage of stages.filter((candidate) => !names.has(candidate.image))) {
      expect(stage.image).toBe(root);
    }
  });

  it("Dependabot proposes the base image's next digest", () => {
    const dependabot = readFileSync(join(ROOT, ".github", "dependabot.yml"), "utf8");
    expect(dependabot).toMatch(/package-ecosystem:\s*"?docker"?/);
  });

  it("leaves no package manager in the runtime stage", () => {
    const runs = finalStage.instructions
      .filter((i) => i.keyword === "RUN")
      .map((i) => i.args)
      .join("\n");
    for (const path of [
      "/usr/local/lib/node_modules/npm",
      "/usr/local/lib/node_modules/corepack",
      "/usr/local/bin/npm",
      "/usr/local/bin/npx",
      "/usr/local/bin/corepack",
    ]) {
      expect(runs, path).toMatch(new RegExp(`rm -rf[^&]*${path.replaceAll("/", "\\/")}(\\s|$)`));
    }
    // and no later RUN of the stage needs them
    const all = finalStage.instructions.filter((i) => i.keyword === "RUN").map((i) => i.args);
    const removal = all.findIndex((run) => run.includes("/usr/local/bin/npx"));
    for (const later of all.slice(removal + 1)) expect(later).not.toMatch(/\b(npm|npx|corepack)\b/);
  });

  it("runs the final stage as a non-root user", () => {
    const users = finalStage.instructions.filter((instruction) => instruction.keyword === "USER");
    expect(users.length).toBeGreaterThan(0);
    const user = users.at(-1)!.args.split(":")[0]!;
    expect(["root", "0"]).not.toContain(user);
    // by number: with a name, runAsNonRoot without runAsUser refuses to start the pod
    // ("image has non-numeric user, cannot verify user is non-root")
    expect(user).toMatch(/^[1-9]\d*$/);
  });

  it("checks /healthz and keeps state on a volume at /data", () => {
    const healthcheck = finalStage.instructions.find((i) => i.keyword === "HEALTHCHECK");
    expect(healthcheck?.args).toContain("/healthz");
    expect(healthcheck?.args).not.toMatch(/\bcurl\b|\bwget\b/);
    const env = imageEnv(join(ROOT, "Dockerfile"));
    expect(env).toMatchObject({
      SQLITE_DEFAULT_PATH: "/data/palette-chatops.sqlite",
      PORT: "3000",
    });
    // a store variable baked in would outrank (STATE_DB) or hide (DATABASE_URL) the operator's
    expect(env).not.toHaveProperty("STATE_DB");
    expect(env).not.toHaveProperty("DATABASE_URL");
    expect(
      finalStage.instructions.some((i) => i.keyword === "VOLUME" && i.args.includes("/data")),
    ).toBe(true);
    expect(
      finalStage.instructions.some((i) => i.keyword === "EXPOSE" && /\b3000\b/.test(i.args)),
    ).toBe(true);
  });

  it("keeps V8's young generation small, and the scale bench runs the bot with the same options", () => {
    const env = Object.fromEntries(
      finalStage.instructions.filter((i) => i.keyword === "ENV").flatMap((i) => envPairs(i.args)),
    );
    expect(env.NODE_OPTIONS).toMatch(/--max-semi-space-size=\d+/);
    expect(imageNodeOptions(ROOT)).toBe(env.NODE_OPTIONS);
  });

  it("bakes no secret into the image", () => {
    const secretName = /token|secret|password|passwd|api_?key|private_?key|credential/i;
    for (const instruction of instructions.filter((i) => ["ENV", "ARG"].includes(i.keyword))) {
      for (const [name, value] of envPairs(instruction.args)) {
        if (secretName.test(name)) {
          expect(value, `line ${instruction.line}: ${name} has a value`).toBeUndefined();
        }
      }
    }
    expect(dockerfile).not.toMatch(/xox[bpa]-|xapp-/);
  });

  it("copies only paths that exist in the repo (and are in the build context) or come from an earlier stage", () => {
    const seen = new Map<string, Stage>();
    for (const stage of stages) {
      for (const instruction of stage.instructions.filter((i) =>
        ["COPY", "ADD"].includes(i.keyword),
      )) {
        const { from, sources } = copySources(instruction.args);
        if (from) {
          const producer = seen.get(from);
          expect(producer, `line ${instruction.line}: stage ${from} comes earlier`).toBeDefined();
          const runs = producer!.instructions
            .filter((i) => i.keyword === "RUN")
            .map((i) => i.args)
            .join("\n");
          for (const source of sources) {
            if (source.endsWith("/node_modules")) expect(runs).toMatch(/npm ci/);
            else if (source.endsWith("/dist")) {
              expect(runs).toMatch(/npm run build/);
              const build = JSON.parse(readFileSync(join(ROOT, "tsconfig.build.json"), "utf8"));
              expect(build.compilerOptions.outDir).toBe("dist");
            } else throw new Error(`line ${instruction.line}: unknown stage output ${source}`);
          }
          continue;
        }
        for (const source of sources) {
          expect(existsSync(join(ROOT, source)), `line ${instruction.line}: ${source} exists`).toBe(
            true,
          );
          expect(ignoredBy(dockerignore, source), `${source} is in .dockerignore`).toBe(false);
        }
      }
      if (stage.name) seen.set(stage.name, stage);
    }
  });

  it("starts `start` through the package's bin, run by node with the image's V8 flags", () => {
    const cmd = finalStage.instructions.filter((i) => i.keyword === "CMD").at(-1);
    expect(JSON.parse(cmd!.args)).toEqual(["start"]);
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    const bin: string = pkg.bin["palette-chatops"];
    expect(bin).toBe("bin/palette-chatops.js");
    expect(existsSync(join(ROOT, bin))).toBe(true);
    const entrypoint = finalStage.instructions.filter((i) => i.keyword === "ENTRYPOINT").at(-1);
    const [program, ...args] = JSON.parse(entrypoint!.args) as string[];
    expect(program).toBe("node");
    expect(args.at(-1)).toBe(`/app/${bin}`);
    // a V8 flag on the command line, where V8 reads it at start (not set at run time)
    expect(args).toContain("--liftoff-only");
    expect(imageNodeFlags(ROOT)).toEqual(args.slice(0, -1));
    const runs = finalStage.instructions.filter((i) => i.keyword === "RUN").map((i) => i.args);
    expect(runs.join("\n")).toContain(`ln -s /app/${bin} /usr/local/bin/palette-chatops`);
    // the bin prefers dist/main.js, which the build stage compiles from src/main.ts
    expect(readFileSync(join(ROOT, bin), "utf8")).toContain('"dist", "main.js"');
  });

  it("keeps local state, secrets and dependencies out of the build context", () => {
    for (const path of [
      "node_modules",
      ".git",
      "data",
      ".env",
      "state.sqlite",
      "dist",
      "coverage",
    ]) {
      expect(ignoredBy(dockerignore, path), path).toBe(true);
    }
  });
});
