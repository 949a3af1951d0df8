import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The NODE_OPTIONS the image's runtime stage sets (its V8 memory settings), so a benchmark of the
 * bot's memory runs it as the image does. Read from the Dockerfile: one place says what they are.
 */
export function imageNodeOptions(root = join(import.meta.dirname, "..")): string {
  const dockerfile = readFileSync(join(root, "Dockerfile"), "utf8");
  const runtime = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
  return /\bNODE_OPTIONS=("[^"]*"|\S+)/.exec(runtime)?.[1]?.replace(/^"|"$/g, "") ?? "";
}
