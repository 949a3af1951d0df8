import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { join } from "node:path";

/**
 * The bot compiled as the image runs it (node dist/main.js), not through tsx, whose compiler would
 * count against the bot's memory and time. Built under node_modules/.cache so packages resolve, in
 * a folder of this checkout's own (worktrees can share one node_modules: one bench must not run
 * another's build). Returns the entry point.
 */
export function buildBot(): string {
  const root = join(import.meta.dirname, "..");
  const checkout = createHash("sha256").update(root).digest("hex").slice(0, 8);
  const outDir = join(root, "node_modules", ".cache", `palette-chatops-bench-${checkout}`);
  execFileSync(
    process.execPath,
    [
      join(root, "node_modules", "typescript", "bin", "tsc"),
      "-p",
      "tsconfig.build.json",
      "--outDir",
      outDir,
    ],
    { cwd: root, stdio: "inherit" },
  );
  return join(outDir, "main.js");
}
