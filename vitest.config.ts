import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // one embedded PostgreSQL per run, started by the first test that asks for a database
    globalSetup: ["test/support/postgres-global-setup.ts"],
  },
});
