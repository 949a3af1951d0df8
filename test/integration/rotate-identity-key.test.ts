import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.ts";
import { Secret } from "../../src/secret.ts";
import { IdentityStore } from "../../src/store/identities.ts";
import { IdentityCipher } from "../../src/store/identity-cipher.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import { spawnCli } from "../support/start-process-harness.ts";

/** `palette-chatops rotate-identity-key` as an operator runs it, on a SQLite state file. */

const OLD = Buffer.alloc(32, 4).toString("base64");
const NEW = Buffer.alloc(32, 5).toString("base64");
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("rotate-identity-key", () => {
  it("re-seals every link under the new key; the old key then opens nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rotate-identity-"));
    dirs.push(dir);
    const file = join(dir, "state.sqlite");
    const clock = new ManualClock(0);
    const before = await openSqlite(file);
    for (const user of ["U1", "U2"]) {
      await new IdentityStore(before, new IdentityCipher(new Secret(OLD)), clock).put({
        slackUserId: user,
        paletteUserUid: `p-${user}`,
        paletteUserName: user,
        method: "key",
        apiKey: new Secret(`personal-key-of-${user}-0123456789`),
      });
    }
    await before.close();

    const cli = spawnCli(["rotate-identity-key"], {
      STATE_DB: file,
      PALETTE_API_KEY: "unused-here",
      IDENTITY: "linked",
      IDENTITY_KEY: NEW,
      IDENTITY_KEY_PREVIOUS: OLD,
    });
    const exit = await cli.exited;
    expect(exit.code, cli.output()).toBe(0);
    expect(cli.stdout()).toContain("2 link(s) re-sealed");
    expect(cli.output()).not.toContain("personal-key-of");

    const after = await openSqlite(file);
    try {
      const withOld = new IdentityStore(after, new IdentityCipher(new Secret(OLD)), clock);
      const withNew = new IdentityStore(after, new IdentityCipher(new Secret(NEW)), clock);
      expect(await withOld.get("U1")).toBeUndefined();
      expect(await withOld.get("U2")).toBeUndefined();
      expect((await withNew.get("U2"))!.apiKey.reveal()).toBe("personal-key-of-U2-0123456789");
    } finally {
      await after.close();
    }
  });
});
