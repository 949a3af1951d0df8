import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * README.md and docs/ point at each other and at files of the repository: a moved page or a renamed
 * heading must not leave a link that goes nowhere. And the configuration page is where an operator
 * looks for a variable, so every one src/config.ts reads is there.
 */

const PAGES = [
  "README.md",
  ...readdirSync("docs")
    .filter((name) => name.endsWith(".md"))
    .map((name) => join("docs", name)),
];

/** the text outside fenced code blocks and inline code spans, where a link is a link */
function proseOf(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** the anchors a page's headings make, a repeated heading numbered as GitHub does (-1, -2…) */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of markdown.replace(/^```[\s\S]*?^```/gm, "").matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(match[1] ?? "");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** the relative link targets of a page: not a URL with a scheme, not a mail address */
function relativeLinks(markdown: string): string[] {
  return [...proseOf(markdown).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] ?? "")
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** what is wrong with one link from `page` (empty when it resolves) */
function brokenLink(page: string, target: string): string | undefined {
  const [path = "", anchor] = target.split("#", 2);
  const file = path === "" ? page : normalize(join(dirname(page), decodeURI(path)));
  if (!existsSync(file)) return `${page}: ${target} (no ${file})`;
  if (anchor === undefined) return undefined;
  if (!statSync(file).isFile() || !file.endsWith(".md"))
    return `${page}: ${target} (an anchor into ${file})`;
  if (!anchorsOf(readFileSync(file, "utf8")).has(anchor)) {
    return `${page}: ${target} (no heading #${anchor} in ${file})`;
  }
  return undefined;
}

describe("links in README.md and docs/", () => {
  it("finds the pages and their links", () => {
    expect(PAGES).toContain(join("docs", "configuration.md"));
    expect(relativeLinks(readFileSync("README.md", "utf8")).length).toBeGreaterThan(10);
  });

  it("every relative link resolves: the file exists, and the heading an anchor names", () => {
    const broken = PAGES.flatMap((page) =>
      relativeLinks(readFileSync(page, "utf8"))
        .map((target) => brokenLink(page, target))
        .filter((problem) => problem !== undefined),
    );
    expect(broken).toEqual([]);
  });

  it("tells a broken link from a good one", () => {
    expect(brokenLink("README.md", "docs/configuration.md")).toBeUndefined();
    expect(brokenLink("README.md", "docs/operations.md#high-availability")).toBeUndefined();
    expect(brokenLink("docs/commands.md", "notifications.md#daily-digest")).toBeUndefined();
    expect(brokenLink("README.md", "docs/nowhere.md")).toMatch(/no docs\/nowhere\.md/);
    expect(brokenLink("README.md", "docs/operations.md#nowhere")).toMatch(/no heading #nowhere/);
    expect(brokenLink("docs/commands.md", "#nowhere")).toMatch(/no heading/);
  });

  it("makes GitHub's anchors", () => {
    expect(slug("Health, metrics, logs")).toBe("health-metrics-logs");
    expect(slug("1. Create the Slack app")).toBe("1-create-the-slack-app");
    expect(slug("Backups of the state store")).toBe("backups-of-the-state-store");
    expect([...anchorsOf("# A\n```\n# not a heading\n```\n## A\n")]).toEqual(["a", "a-1"]);
    expect(relativeLinks("[a](b.md) `[c](d.md)` [e](https://x.y) <https://z> [f](#g)")).toEqual([
      "b.md",
      "#g",
    ]);
  });
});

describe("docs/configuration.md", () => {
  const source = readFileSync(join("src", "config.ts"), "utf8");
  const schema = source.slice(source.indexOf("const rawEnvSchema = z.object({"));
  const schemaKeys = [
    ...schema.slice(0, schema.indexOf("\n});")).matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm),
  ];
  const directReads = [
    ...source.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]*)|\[["']([A-Z][A-Z0-9_]*)["']\])/g),
  ];
  const read = new Set([
    ...schemaKeys.map((match) => match[1] ?? ""),
    ...directReads.map((match) => match[1] ?? match[2] ?? ""),
  ]);

  it("documents every environment variable src/config.ts reads", () => {
    expect(read.size).toBeGreaterThan(20);
    expect(read).toContain("LOG_LEVEL");
    const table = new Set(
      [
        ...readFileSync(join("docs", "configuration.md"), "utf8").matchAll(
          /^\| `([A-Z][A-Z0-9_]*)` \|/gm,
        ),
      ].map((match) => match[1]),
    );
    expect([...read].filter((name) => !table.has(name))).toEqual([]);
  });
});
