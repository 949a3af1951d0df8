import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * How the image runs node, read from the Dockerfile's runtime stage, so a benchmark runs the bot
 * (and the bare-Bolt floor it is compared with) exactly as the image does. One place says what
 * the settings are.
 */
function runtimeStage(root: string): string {
  const dockerfile = readFileSync(join(root, "Dockerfile"), "utf8");
  return dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
}

const ROOT = join(import.meta.dirname, "..");

/** The runtime stage's NODE_OPTIONS (its V8 heap settings). */
export function imageNodeOptions(root = ROOT): string {
  return /\bNODE_OPTIONS=("[^"]*"|\S+)/.exec(runtimeStage(root))?.[1]?.replace(/^"|"$/g, "") ?? "";
}

/** The flags the ENTRYPOINT gives node before the script (V8 flags NODE_OPTIONS refuses). */
export function imageNodeFlags(root = ROOT): string[] {
  const entrypoint = /^ENTRYPOINT\s+(\[.*\])\s*$/m.exec(runtimeStage(root))?.[1];
  if (!entrypoint) return [];
  const [program, ...args] = JSON.parse(entrypoint) as string[];
  if (program !== "node") return [];
  return args.filter((arg) => arg.startsWith("--"));
}
