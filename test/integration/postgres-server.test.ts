import { chmod, mkdtemp, readdir, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { startPostgresServer } from "../support/postgres-server.ts";
import { freePort } from "../support/start-process-harness.ts";

// The server the suite's PostgreSQL tests run on: it starts from wherever the clone is, and
// whatever happens, it leaves nothing behind.
/** like the run's temp dir: reachable by the `postgres` user the server runs as under root */
async function openParent(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "palette-chatops-pgtest-"));
  await chmod(dir, 0o755);
  return dir;
}

describe("the test PostgreSQL server", () => {
  let parent: string | undefined;
  afterEach(async () => {
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it("starts, answers a query, and leaves no directory behind when stopped", async () => {
    parent = await openParent();
    const server = await startPostgresServer({
      port: await freePort(),
      password: "secret-for-this-test",
      parentDir: parent,
      settings: { listen_addresses: "127.0.0.1", unix_socket_directories: "" },
    });
    expect(await readdir(parent)).toHaveLength(1);
    const client = new pg.Client({
      host: "127.0.0.1",
      port: server.port,
      user: "postgres",
      password: "secret-for-this-test",
      database: "postgres",
    });
    await client.connect();
    const { rows } = await client.query<{ one: number }>("SELECT 1 AS one");
    await client.end();
    expect(rows[0]?.one).toBe(1);
    await server.stop();
    expect(await readdir(parent)).toEqual([]);
  }, 120_000);

  it("turns a server that cannot start into one error with its output, and cleans up", async () => {
    parent = await openParent();
    // the port is taken: postgres exits at start
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      await expect(
        startPostgresServer({
          port,
          password: "x",
          parentDir: parent,
          settings: { listen_addresses: "127.0.0.1", unix_socket_directories: "" },
        }),
      ).rejects.toThrow(/postgres exited at start[\s\S]*could not (bind|create listen)/i);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
    expect(await readdir(parent)).toEqual([]);
  }, 120_000);
});
