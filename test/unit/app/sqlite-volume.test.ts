import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  networkFileSystem,
  refuseNetworkSqlite,
  SqliteOnNetworkFileSystem,
} from "../../../src/app/sqlite-volume.ts";

/**
 * Issue 37, item 6: SQLite's locks and its WAL's shared memory do not hold on a network file
 * system, so a STATE_DB there is refused at start. The file system is told by statfs's f_type
 * (Linux's magic numbers, statfs(2)); no NFS mount here, so the type is given to the check.
 */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("refuseNetworkSqlite", () => {
  it("refuses a file on NFS, naming it, the file system and what to do instead", async () => {
    const asked: string[] = [];
    const error = await refuseNetworkSqlite("/data/state.sqlite", async (dir) => {
      asked.push(dir);
      return 0x6969;
    }).catch((e: unknown) => e);
    expect(asked).toEqual(["/data"]);
    expect(error).toBeInstanceOf(SqliteOnNetworkFileSystem);
    const message = (error as Error).message;
    expect(message).toContain("/data/state.sqlite");
    expect(message).toContain("NFS");
    expect(message).toContain("DATABASE_URL");
    expect(message).toContain("ReadWriteOnce");
  });

  it("knows SMB/CIFS (an unsigned f_type read either way) and the cluster file systems", () => {
    expect(networkFileSystem(0xff534d42)).toBe("CIFS");
    expect(networkFileSystem(0xff534d42 | 0)).toBe("CIFS");
    expect(networkFileSystem(0xfe534d42)).toBe("SMB2");
    expect(networkFileSystem(0x517b)).toBe("SMB");
    expect(networkFileSystem(0x00c36400)).toBe("CephFS");
  });

  it("lets local file systems and FUSE through", async () => {
    expect(networkFileSystem(0xef53)).toBeUndefined(); // ext4
    expect(networkFileSystem(0x01021994)).toBeUndefined(); // tmpfs
    expect(networkFileSystem(0x794c7630)).toBeUndefined(); // overlayfs
    expect(networkFileSystem(0x65735546)).toBeUndefined(); // FUSE (Docker Desktop's sharing)
    await expect(refuseNetworkSqlite("/x/state.sqlite", async () => 0xef53)).resolves.toBe(
      undefined,
    );
  });

  it("judges a folder not made yet by the nearest one above it", async () => {
    const asked: string[] = [];
    const error = await refuseNetworkSqlite("/mnt/nfs/new/state.sqlite", async (dir) => {
      asked.push(dir);
      if (dir !== "/mnt/nfs") throw Object.assign(new Error("ENOENT"), { code: "ENOENT" });
      return 0x6969;
    }).catch((e: unknown) => e);
    expect(asked).toEqual(["/mnt/nfs/new", "/mnt/nfs"]);
    expect(error).toBeInstanceOf(SqliteOnNetworkFileSystem);
  });

  it("reads the real file system of a local folder, one not made yet included", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sqlite-volume-"));
    dirs.push(dir);
    await expect(refuseNetworkSqlite(join(dir, "state.sqlite"))).resolves.toBe(undefined);
    await expect(refuseNetworkSqlite(join(dir, "missing", "deeper", "state.sqlite"))).resolves.toBe(
      undefined,
    );
  });
});
