import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { VERBS } from "../../../src/commands/dispatch.ts";
import { CONFIG_VARIABLES } from "../../../src/config.ts";

const readme = readFileSync("README.md", "utf8");

function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  expect(start, `README section "${title}"`).toBeGreaterThan(-1);
  const end = readme.indexOf("\n## ", start + 1);
  return readme.slice(start, end === -1 ? undefined : end);
}

describe("README", () => {
  it("documents exactly the variables src/config.ts reads", () => {
    const documented = [...section("Configuration").matchAll(/^\| `([A-Z_]+)` \|/gm)].map(
      (match) => match[1],
    );
    expect([...documented].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it("documents every /palette verb", () => {
    const commands = section("Commands");
    for (const verb of VERBS) expect(commands).toContain(`| \`${verb.name}`);
  });

  it("shows the two quick-start commands verbatim", () => {
    const quickStart = section("Quick start");
    expect(quickStart).toContain("npm ci && npm run demo");
    expect(quickStart).toContain("npm ci && npm test");
  });

  it("runs in CI the test command it gives", () => {
    const ci = readFileSync(".ci/run", "utf8");
    expect(ci).toMatch(/^npm ci\b/m);
    expect(ci).toMatch(/^npm test\b/m);
  });

  it("lists every folder of src/ in its layout table, and no folder that is gone", () => {
    const folders = (dir: string): string[] =>
      readdirSync(dir)
        .filter((name) => statSync(join(dir, name)).isDirectory())
        .flatMap((name) => [`${dir}/${name}/`, ...folders(`${dir}/${name}`)]);
    const listed = [
      ...section("How it fits together").matchAll(/^\| `(src\/[a-z/-]+\/)` \|/gm),
    ].map((match) => match[1]);
    expect([...listed].sort()).toEqual(
      folders("src")
        .filter((folder) => !folder.startsWith("src/slack/listeners/"))
        .concat("src/slack/listeners/")
        .sort(),
    );
  });
});
