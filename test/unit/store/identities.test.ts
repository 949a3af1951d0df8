import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { Secret } from "../../../src/secret.ts";
import { IdentityStore } from "../../../src/store/identities.ts";
import { IdentityCipher } from "../../../src/store/identity-cipher.ts";
import type { SqlDb } from "../../../src/store/sql.ts";
import { openSqlite } from "../../../src/store/sqlite.ts";
import { BACKENDS, closeOpened } from "../../support/backends.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../../support/postgres.ts";

afterEach(closeOpened);

const KEY_A = new Secret(Buffer.alloc(32, 1).toString("base64"));
const KEY_B = new Secret(Buffer.alloc(32, 2).toString("base64"));
const PERSONAL = "simkey-personal-api-key-of-vera-0123456789";

const link = (slackUserId: string, apiKey = PERSONAL) => ({
  slackUserId,
  paletteUserUid: "u-vera",
  paletteUserName: "Vera Viewer",
  org: "demo",
  method: "key" as const,
  apiKey: new Secret(apiKey),
});

/** every row of every table of the database, as text: what a dump would show */
async function dump(db: SqlDb): Promise<string> {
  const tables =
    db.dialect === "sqlite"
      ? await db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      : await db.all<{ name: string }>(
          "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()",
        );
  const rows = await Promise.all(tables.map((t) => db.all(`SELECT * FROM "${t.name}"`)));
  return JSON.stringify(rows);
}

describe("IdentityCipher", () => {
  it("opens what it sealed for the same owner only, and names its key", () => {
    const cipher = new IdentityCipher(KEY_A);
    const sealed = cipher.seal(PERSONAL, "U1");
    expect(sealed).not.toContain(PERSONAL);
    expect(sealed.startsWith(`v1.${cipher.currentKeyId}.`)).toBe(true);
    expect(cipher.open(sealed, "U1")).toBe(PERSONAL);
    expect(cipher.open(sealed, "U2")).toBeUndefined();
    expect(new IdentityCipher(KEY_B).open(sealed, "U1")).toBeUndefined();
    const tampered = `${sealed.slice(0, -2)}${sealed.endsWith("A") ? "B" : "A"}A`;
    expect(cipher.open(tampered, "U1")).toBeUndefined();
  });
});

describe.each(BACKENDS)(
  "identity links on $name",
  { timeout: POSTGRES_SETUP_TIMEOUT_MS },
  (backend) => {
    it("keeps one link a person, the later login's, with the key sealed", async () => {
      const db = await backend.open();
      const clock = new ManualClock(Date.parse("2026-11-24T10:00:00Z"));
      const store = new IdentityStore(db, new IdentityCipher(KEY_A), clock);
      await Promise.all([store.put(link("U1", "key-one")), store.put(link("U1", "key-two"))]);
      const rows = await db.all("SELECT slack_user_id FROM identity_links");
      expect(rows).toHaveLength(1);
      expect(["key-one", "key-two"]).toContain((await store.get("U1"))!.apiKey.reveal());
      await store.put(link("U2"));
      expect(await dump(db)).not.toContain(PERSONAL);
      expect((await store.get("U2"))!.apiKey.reveal()).toBe(PERSONAL);
      expect(await store.remove("U2")).toBe(true);
      expect(await store.remove("U2")).toBe(false);
      expect(await store.get("U2")).toBeUndefined();
    });

    it("re-seals every row under a new key, after which the old key opens nothing", async () => {
      const db = await backend.open();
      const clock = new ManualClock(Date.parse("2026-11-24T10:00:00Z"));
      await new IdentityStore(db, new IdentityCipher(KEY_A), clock).put(link("U1"));
      const rotating = new IdentityStore(db, new IdentityCipher(KEY_B, KEY_A), clock);
      expect(await rotating.reseal()).toEqual({ resealed: 1, unreadable: 0 });
      expect(await rotating.reseal()).toEqual({ resealed: 0, unreadable: 0 });
      expect(
        await new IdentityStore(db, new IdentityCipher(KEY_A), clock).get("U1"),
      ).toBeUndefined();
      expect(
        (await new IdentityStore(db, new IdentityCipher(KEY_B), clock).get("U1"))!.apiKey.reveal(),
      ).toBe(PERSONAL);
    });
  },
);

describe("the SQLite file", () => {
  it("holds no linked key in the clear, WAL included", async () => {
    const dir = mkdtempSync(join(tmpdir(), "identity-file-"));
    try {
      const db = await openSqlite(join(dir, "state.sqlite"));
      await new IdentityStore(db, new IdentityCipher(KEY_A), new ManualClock(0)).put(link("U1"));
      const files = readdirSync(dir);
      // read while open (the WAL holds the write) and after closing (checkpointed)
      const whileOpen = files.map((name) => readFileSync(join(dir, name)));
      await db.close();
      const afterClose = readdirSync(dir).map((name) => readFileSync(join(dir, name)));
      expect(files.length).toBeGreaterThan(0);
      for (const bytes of [...whileOpen, ...afterClose])
        expect(bytes.includes(PERSONAL)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
