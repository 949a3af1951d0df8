import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Secret } from "../../../src/secret.ts";
import { MIGRATIONS } from "../../../src/store/migrations/index.ts";
import { POSTGRES_MIGRATIONS } from "../../../src/store/migrations/postgres.ts";
import { openStore } from "../../../src/store/open.ts";
import type { SqlDb } from "../../../src/store/sql.ts";
import { freshDatabase, POSTGRES_SETUP_TIMEOUT_MS } from "../../support/postgres.ts";

const opened: SqlDb[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.close()));
});

/** a port nothing listens on: taken, then freed */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("openStore", () => {
  it("opens a migrated SQLite for a path", async () => {
    const db = await openStore({ kind: "sqlite", path: ":memory:" });
    opened.push(db);
    expect(db.dialect).toBe("sqlite");
    const latest = Math.max(...MIGRATIONS.map((m) => m.id));
    expect(await db.get("SELECT MAX(id) AS id FROM schema_migrations")).toEqual({ id: latest });
  });

  it(
    "opens PostgreSQL for a URL and brings it to the latest migration before returning",
    async () => {
      const db = await openStore({
        kind: "postgres",
        url: new Secret((await freshDatabase()).url),
      });
      opened.push(db);
      expect(db.dialect).toBe("postgres");
      // the newest of PostgreSQL's own list (it has a table SQLite has not: 90, the leader lease)
      const latest = Math.max(...POSTGRES_MIGRATIONS.map((m) => m.id));
      expect(await db.get("SELECT MAX(id) AS id FROM schema_migrations")).toEqual({ id: latest });
      expect(await db.get("SELECT COUNT(*) AS n FROM notify_snapshots")).toEqual({ n: 0 });
    },
    POSTGRES_SETUP_TIMEOUT_MS,
  );

  it("fails on an unreachable server with an error that holds no URL or password", async () => {
    const port = await closedPort();
    const url = `postgres://bot:pg-password-value@127.0.0.1:${port}/chatops`;
    const error = await openStore({ kind: "postgres", url: new Secret(url) }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(Error);
    const printed = `${error!.message} ${error!.stack} ${JSON.stringify(error)}`;
    expect(printed).not.toContain("pg-password-value");
    expect(printed).not.toContain(url);
  });
});
