import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseDockerfile, stagesOf } from "../../support/dockerfile.ts";

/**
 * The image keeps only what dist/ needs (issue 38 item 6): no TypeScript runner among the
 * production dependencies, and better-sqlite3's build tree and SQLite's sources pruned by
 * scripts/prune-production-modules.sh in the Dockerfile's prod-deps stage. The size before and
 * after is measured by scripts/production-modules-size.mjs (docs/benchmarks.md).
 */

const ROOT = join(import.meta.dirname, "..", "..", "..");
const PRUNE = join(ROOT, "scripts", "prune-production-modules.sh");
const scratch = mkdtempSync(join(tmpdir(), "prune-modules-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

/** a node_modules with better-sqlite3 as `npm ci` leaves it after compiling the addon */
function compiledTree(name: string, withAddon = true): string {
  const modules = join(scratch, name, "node_modules");
  const files = [
    "package.json",
    "binding.gyp",
    "lib/index.js",
    "lib/database.js",
    "src/better_sqlite3.cpp",
    "deps/sqlite3/sqlite3.c",
    "build/Makefile",
    "build/Release/obj.target/better_sqlite3/src/better_sqlite3.o",
    "build/Release/sqlite3.a",
    "build/Release/test_extension.node",
    ...(withAddon ? ["build/Release/better_sqlite3.node"] : []),
  ];
  for (const file of files) {
    const path = join(modules, "better-sqlite3", file);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, file);
  }
  return modules;
}

describe("the image's production node_modules", () => {
  it("carries no TypeScript runner: tsx (and with it esbuild) are development dependencies", () => {
    expect(Object.keys(pkg.dependencies)).not.toContain("tsx");
    expect(Object.keys(pkg.dependencies)).not.toContain("esbuild");
    expect(Object.keys(pkg.devDependencies)).toContain("tsx");
    const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<string, { dev?: boolean }>;
    };
    for (const path of ["node_modules/tsx", "node_modules/esbuild"]) {
      expect(lock.packages[path]?.dev, `${path} is dev-only in the lock`).toBe(true);
    }
    // the bin reaches for tsx only where there is no dist/ (a source checkout), never in the image
    expect(readFileSync(join(ROOT, "bin", "palette-chatops.js"), "utf8")).toMatch(
      /if \(existsSync\(compiled\)\) \{[\s\S]*\} else \{[\s\S]*tsx\/esm\/api/,
    );
  });

  it("the prune keeps better-sqlite3's addon and lib/, and drops its build tree and SQLite's sources", () => {
    const modules = compiledTree("compiled");
    const run = spawnSync("sh", [PRUNE, modules], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(filesUnder(join(modules, "better-sqlite3"))).toEqual([
      "build/Release/better_sqlite3.node",
      "lib/database.js",
      "lib/index.js",
      "package.json",
    ]);
    expect(
      readFileSync(join(modules, "better-sqlite3", "build/Release/better_sqlite3.node"), "utf8"),
    ).toBe("build/Release/better_sqlite3.node");
  });

  it("the prune refuses a tree without the compiled addon, rather than leave the image without SQLite", () => {
    const modules = compiledTree("no-addon", false);
    const run = spawnSync("sh", [PRUNE, modules], { encoding: "utf8" });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/better_sqlite3\.node is missing; nothing pruned/);
    expect(filesUnder(join(modules, "better-sqlite3"))).toContain("deps/sqlite3/sqlite3.c");
  });

  it("the Dockerfile's prod-deps stage runs the prune after npm ci --omit=dev, and the runtime copies that node_modules", () => {
    const stages = stagesOf(parseDockerfile(readFileSync(join(ROOT, "Dockerfile"), "utf8")));
    const prodDeps = stages.find((stage) => stage.name === "prod-deps")!;
    const runs = prodDeps.instructions.filter((i) => i.keyword === "RUN").map((i) => i.args);
    const install = runs.find((args) => args.includes("npm ci --omit=dev"));
    expect(install).toMatch(
      /npm ci --omit=dev[\s\S]*&& sh scripts\/prune-production-modules\.sh node_modules/,
    );
    const copies = prodDeps.instructions.filter((i) => i.keyword === "COPY").map((i) => i.args);
    expect(copies).toContain("scripts/prune-production-modules.sh ./scripts/");
    const runtime = stages.at(-1)!;
    expect(
      runtime.instructions.some(
        (i) => i.keyword === "COPY" && i.args.startsWith("--from=prod-deps /app/node_modules"),
      ),
    ).toBe(true);
  });
});
