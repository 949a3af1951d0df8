import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CONFIG_VARIABLES } from "../../../src/config.ts";
import { VERBS } from "../../../src/registry/dispatch.ts";

const readme = readFileSync("README.md", "utf8");
const doc = (page: string): string => readFileSync(join("docs", page), "utf8");

function section(text: string, title: string): string {
  const start = text.indexOf(`\n## ${title}\n`);
  expect(start, `section "${title}"`).toBeGreaterThan(-1);
  const end = text.indexOf("\n## ", start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

describe("README", () => {
  it("is short: at most 200 lines, the rest is in docs/", () => {
    expect(readme.trimEnd().split("\n").length).toBeLessThanOrEqual(200);
  });

  it("shows the two quick-start commands verbatim", () => {
    const quickStart = section(readme, "Quick start");
    expect(quickStart).toContain("npm ci && npm run demo");
    expect(quickStart).toContain("npm ci && npm test");
  });

  it("runs in CI the test command it gives", () => {
    const ci = readFileSync(".ci/run", "utf8");
    expect(ci).toMatch(/^npm ci\b/m);
    expect(ci).toMatch(/^npm test\b/m);
  });

  it("links every page of docs/ from its Documentation table", () => {
    const table = section(readme, "Documentation");
    const pages = readdirSync("docs").filter((name) => name.endsWith(".md"));
    expect(pages.length).toBeGreaterThanOrEqual(12);
    for (const page of pages) expect(table, page).toContain(`](docs/${page})`);
  });

  it("names the published image in its Docker section", () => {
    expect(section(readme, "Docker")).toContain("ghcr.io/<owner>/palette-chatops");
  });
});

describe("docs/", () => {
  it("configuration.md documents exactly the variables src/config.ts reads", () => {
    const documented = [...doc("configuration.md").matchAll(/^\| `([A-Z_]+)` \|/gm)].map(
      (match) => match[1],
    );
    expect([...documented].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it("commands.md documents every /palette verb", () => {
    const commands = doc("commands.md");
    for (const verb of VERBS) expect(commands).toContain(`| \`${verb.name}`);
  });

  it("architecture.md lists every folder of src/ in its layout table, and no folder that is gone", () => {
    const folders = (dir: string): string[] =>
      readdirSync(dir)
        .filter((name) => statSync(join(dir, name)).isDirectory())
        .flatMap((name) => [`${dir}/${name}/`, ...folders(`${dir}/${name}`)]);
    const listed = [...doc("architecture.md").matchAll(/^\| `(src\/[a-z/-]+\/)` \|/gm)].map(
      (match) => match[1],
    );
    expect([...listed].sort()).toEqual(
      folders("src")
        .filter((folder) => !folder.startsWith("src/slack/listeners/"))
        .concat("src/slack/listeners/")
        .sort(),
    );
  });
});
