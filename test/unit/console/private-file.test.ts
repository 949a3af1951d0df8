import { lstat, mkdtemp, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writePrivateFile } from "../../../src/console/private-file.ts";

describe("writePrivateFile (the console's kubeconfig)", () => {
  it("replaces an old world-readable file with a new 0600 one", async () => {
    const dir = await mkdtemp(join(tmpdir(), "private-file-"));
    const path = join(dir, "web.kubeconfig");
    await writeFile(path, "old", { mode: 0o644 });
    await writePrivateFile(path, Buffer.from("secret"));
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readFile(path, "utf8")).toBe("secret");
    expect(await readdir(dir)).toEqual(["web.kubeconfig"]);
  });

  it("replaces a symlink planted at the path instead of writing through it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "private-file-"));
    const elsewhere = join(dir, "elsewhere.txt");
    await writeFile(elsewhere, "untouched", { mode: 0o644 });
    const path = join(dir, "web.kubeconfig");
    await symlink(elsewhere, path);
    await writePrivateFile(path, Buffer.from("secret"));
    expect((await lstat(path)).isSymbolicLink()).toBe(false);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readFile(elsewhere, "utf8")).toBe("untouched");
  });
});
