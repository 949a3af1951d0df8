import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { imageNodeFlags, imageNodeOptions } from "../../../bench/image-node-options.ts";

/**
 * Static checks of the Dockerfile (no Docker daemon needed): the rules an image reviewer would
 * apply, checked on every test run so a refactor cannot quietly break the image.
 */

const ROOT = process.cwd();

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

interface Stage {
  image: string;
  name?: string;
  instructions: Instruction[];
}

/** Joins `\` continuations, drops comments and blank lines. */
function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let buffer = "";
  let start = 0;
  text.split("\n").forEach((raw, index) => {
    const line = raw.trimEnd();
    if (buffer === "" && (line.trim() === "" || line.trim().startsWith("#"))) return;
    if (buffer !== "" && line.trim().startsWith("#")) return;
    if (buffer === "") start = index + 1;
    if (line.endsWith("\\")) {
      buffer += `${line.slice(0, -1)} `;
      return;
    }
    buffer += line;
    const match = /^\s*([A-Za-z]+)\s+([\s\S]*)$/.exec(buffer);
    if (match) out.push({ keyword: match[1]!.toUpperCase(), args: match[2]!.trim(), line: start });
    buffer = "";
  });
  return out;
}

function stagesOf(instructions: Instruction[]): Stage[] {
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === "FROM") {
      const words = instruction.args.split(/\s+/).filter((word) => !word.startsWith("--"));
      const asIndex = words.findIndex((word) => word.toLowerCase() === "as");
      stages.push({
        image: words[0]!,
        name: asIndex >= 0 ? words[asIndex + 1] : undefined,
        instructions: [],
      });
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return stages;
}

/** `KEY=value KEY2="v 2"` or the legacy `KEY value` form. */
function envPairs(args: string): Array<[string, string | undefined]> {
  if (!args.includes("=")) {
    const [key, ...rest] = args.split(/\s+/);
    return [[key!, rest.join(" ") || undefined]];
  }
  const pairs: Array<[string, string | undefined]> = [];
  for (const match of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)(?:=("[^"]*"|'[^']*'|\S*))?/g)) {
    pairs.push([match[1]!, match[2] === undefined || match[2] === "" ? undefined : match[2]]);
  }
  return pairs;
}

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
    expect(finalStage.image === "node:22-bookworm-slim" || names.has(finalStage.image)).toBe(true);
    // the final stage's root image is the slim one
    let root = finalStage.image;
    while (names.has(root)) root = stages.find((stage) => stage.name === root)!.image;
    expect(root).toBe("node:22-bookworm-slim");
  });

  it("runs the final stage as a non-root user", () => {
    const users = finalStage.instructions.filter((instruction) => instruction.keyword === "USER");
    expect(users.length).toBeGreaterThan(0);
    const user = users.at(-1)!.args.split(":")[0]!;
    expect(["root", "0"]).not.toContain(user);
  });

  it("checks /healthz and keeps state on a volume at /data", () => {
    const healthcheck = finalStage.instructions.find((i) => i.keyword === "HEALTHCHECK");
    expect(healthcheck?.args).toContain("/healthz");
    expect(healthcheck?.args).not.toMatch(/\bcurl\b|\bwget\b/);
    const env = finalStage.instructions
      .filter((i) => i.keyword === "ENV")
      .flatMap((i) => envPairs(i.args));
    expect(Object.fromEntries(env)).toMatchObject({
      STATE_DB: "/data/palette-chatops.sqlite",
      PORT: "3000",
    });
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
