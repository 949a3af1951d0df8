import { readFileSync } from "node:fs";

/**
 * A reader of the Dockerfile for tests (no Docker daemon): its instructions, its stages, and the
 * environment its final stage bakes into the image, which a container starts from before
 * Kubernetes' envFrom and env (test/support/container-env.ts).
 */

export interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

export interface Stage {
  image: string;
  name?: string;
  instructions: Instruction[];
}

/** Joins `\` continuations, drops comments and blank lines. */
export function parseDockerfile(text: string): Instruction[] {
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

export function stagesOf(instructions: Instruction[]): Stage[] {
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
export function envPairs(args: string): Array<[string, string | undefined]> {
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

/** The ENV of the final stage (and the stages it builds on), as a container starts with it. */
export function imageEnv(dockerfilePath: string): Record<string, string> {
  const stages = stagesOf(parseDockerfile(readFileSync(dockerfilePath, "utf8")));
  const chain: Stage[] = [];
  let stage: Stage | undefined = stages.at(-1);
  while (stage) {
    chain.unshift(stage);
    const parent = stage.image;
    stage = stages.find((candidate) => candidate.name === parent);
  }
  const env: Record<string, string> = {};
  for (const { instructions } of chain) {
    for (const instruction of instructions.filter((i) => i.keyword === "ENV")) {
      for (const [name, value] of envPairs(instruction.args)) {
        env[name] = (value ?? "").replace(/^(["'])(.*)\1$/, "$2");
      }
    }
  }
  return env;
}
