#!/usr/bin/env node
// The image's production node_modules, measured without Docker: package.json and
// package-lock.json of a commit (or of the working tree) copied into a scratch directory,
// `npm ci --omit=dev` there as the Dockerfile's prod-deps stage runs it, then
// scripts/prune-production-modules.sh when that commit has it (as the stage does). Prints one
// JSON object: the total of the files' sizes, the count, the time npm ci took, the largest
// packages, and a check that the pruned tree still loads every production dependency and opens a
// SQLite database. The scratch directory is removed afterwards.
//   node scripts/production-modules-size.mjs            # the working tree
//   node scripts/production-modules-size.mjs 05deffe    # a commit, e.g. before a change
import { execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const rev = process.argv[2];
const PRUNE = "scripts/prune-production-modules.sh";

/** a file of the commit, or of the working tree without one; undefined when it is not there */
function fileAt(path) {
  if (!rev) return existsSync(join(root, path)) ? readFileSync(join(root, path)) : undefined;
  const shown = spawnSync("git", ["show", `${rev}:${path}`], { cwd: root });
  return shown.status === 0 ? shown.stdout : undefined;
}

/** bytes and files under a directory, by the files' own sizes (links not followed) */
function measure(dir) {
  let bytes = 0;
  let files = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = measure(path);
      bytes += inner.bytes;
      files += inner.files;
    } else {
      bytes += lstatSync(path).size;
      files += 1;
    }
  }
  return { bytes, files };
}

/** the top-level packages (scopes opened), largest first */
function packages(modules) {
  const list = [];
  for (const entry of readdirSync(modules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const names = entry.name.startsWith("@")
      ? readdirSync(join(modules, entry.name)).map((inner) => `${entry.name}/${inner}`)
      : [entry.name];
    for (const name of names) list.push({ name, bytes: measure(join(modules, name)).bytes });
  }
  return list.sort((a, b) => b.bytes - a.bytes);
}

const scratch = mkdtempSync(join(tmpdir(), "production-modules-"));
try {
  for (const path of ["package.json", "package-lock.json"]) {
    const text = fileAt(path);
    if (!text) throw new Error(`${path} is not in ${rev ?? "the working tree"}`);
    writeFileSync(join(scratch, path), text);
  }
  const started = process.hrtime.bigint();
  execFileSync("npm", ["ci", "--omit=dev", "--no-audit", "--no-fund"], {
    cwd: scratch,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const npmCiSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const modules = join(scratch, "node_modules");
  const unpruned = measure(modules);
  const prune = fileAt(PRUNE);
  if (prune) {
    writeFileSync(join(scratch, "prune.sh"), prune);
    execFileSync("sh", [join(scratch, "prune.sh"), modules], { stdio: "inherit" });
  }
  const { bytes, files } = measure(modules);
  // the pruned tree still serves the bot: every production dependency loads, SQLite opens
  const dependencies = Object.keys(JSON.parse(String(fileAt("package.json"))).dependencies ?? {});
  const check = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `for (const name of ${JSON.stringify(dependencies)}) await import(name);
       const { default: Database } = await import("better-sqlite3");
       const db = new Database(":memory:");
       console.log(db.prepare("select sqlite_version() as v").get().v);`,
    ],
    { cwd: scratch, encoding: "utf8" },
  );
  console.log(
    JSON.stringify(
      {
        rev: rev ?? "working tree",
        pruned: Boolean(prune),
        bytes,
        megabytes: Math.round((bytes / 1e6) * 10) / 10,
        files,
        unprunedBytes: unpruned.bytes,
        npmCiSeconds: Math.round(npmCiSeconds),
        hasTsx: existsSync(join(modules, "tsx")),
        hasEsbuild: existsSync(join(modules, "esbuild")),
        loads: check.status === 0 ? `ok (SQLite ${check.stdout.trim()})` : check.stderr.trim(),
        largest: packages(modules)
          .slice(0, 8)
          .map((entry) => `${entry.name} ${Math.round((entry.bytes / 1e6) * 10) / 10} MB`),
      },
      null,
      2,
    ),
  );
  if (check.status !== 0) process.exitCode = 1;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
