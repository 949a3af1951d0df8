import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { FIXTURES_DIR } from "../../support/fixtures.ts";

/**
 * A user clones the repository with nothing beside it, so no code, test, script or CI step may read
 * the research folder that sat beside it during development. The needles are assembled so this file
 * does not name them itself.
 */
const NEEDLES = [["..", "shared"].join("/"), ["SHARED", "DIR"].join("_")];
const ROOTS = ["src", "test", "bench", ".ci"];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("the repository stands alone", () => {
  it("no file under src/, test/, bench/ or .ci/ names the folder beside the clone", () => {
    const offenders = ROOTS.flatMap(filesUnder).filter((file) => {
      const text = readFileSync(file, "utf8");
      return NEEDLES.some((needle) => text.includes(needle));
    });
    expect(offenders).toEqual([]);
  });

  it("the fixtures the tests read are in the repository, each folder with its SOURCE.md", () => {
    const folders = readdirSync(FIXTURES_DIR).filter((name) =>
      statSync(join(FIXTURES_DIR, name)).isDirectory(),
    );
    expect(folders.sort()).toEqual(["github", "helm", "palette-api", "slack"]);
    for (const folder of folders) {
      const source = readFileSync(join(FIXTURES_DIR, folder, "SOURCE.md"), "utf8");
      // copied from elsewhere: where from, at which commit; written here: it says so
      if (!/written for this repository/.test(source)) {
        expect(source, relative(process.cwd(), folder)).toMatch(/commit `[0-9a-f]{40}`/);
      }
      expect(source).toMatch(/licen[cs]e/i);
    }
  });
});
