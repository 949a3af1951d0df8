import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

/**
 * The files a team looks for before it adopts a tool: the licence package.json declares, a changelog
 * whose newest release is the version package.json and the manifests carry, how to contribute, and
 * how to report a vulnerability.
 */

const read = (path: string) => readFileSync(path, "utf8");
const pkg = JSON.parse(read("package.json")) as { version: string; license: string };

/** "1.2.3" → [1, 2, 3], to compare releases */
const parts = (version: string) => version.split(".").map(Number);
const newer = (a: string, b: string) => {
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] ?? 0) > (y[i] ?? 0);
  return false;
};

describe("project files", () => {
  it("LICENSE is the full Apache-2.0 text package.json declares", () => {
    expect(pkg.license).toBe("Apache-2.0");
    const license = read("LICENSE");
    expect(license).toContain(
      "Apache License\n                           Version 2.0, January 2004",
    );
    const sections = [
      "1. Definitions.",
      "2. Grant of Copyright License.",
      "3. Grant of Patent License.",
      "4. Redistribution.",
      "5. Submission of Contributions.",
      "6. Trademarks.",
      "7. Disclaimer of Warranty.",
      "8. Limitation of Liability.",
      "9. Accepting Warranty or Additional Liability.",
      "END OF TERMS AND CONDITIONS",
      "APPENDIX: How to apply the Apache License to your work.",
      "http://www.apache.org/licenses/LICENSE-2.0",
    ];
    let at = -1;
    for (const heading of sections) {
      const next = license.indexOf(heading);
      expect(next, heading).toBeGreaterThan(at);
      at = next;
    }
    expect(license.split("\n").length).toBeGreaterThan(190);
  });

  it("CHANGELOG.md keeps an Unreleased section and releases newest first, the newest package.json's version", () => {
    const changelog = read("CHANGELOG.md");
    expect(changelog).toMatch(/^## \[Unreleased\]$/m);
    const releases = [...changelog.matchAll(/^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$/gm)];
    expect(releases.length).toBeGreaterThanOrEqual(5);
    const versions = releases.map((match) => match[1]!);
    const dates = releases.map((match) => match[2]!);
    for (let i = 1; i < versions.length; i++) {
      expect(newer(versions[i - 1]!, versions[i]!), `${versions[i - 1]} after ${versions[i]}`).toBe(
        true,
      );
      expect(dates[i - 1]! >= dates[i]!).toBe(true);
    }
    expect(versions[0]).toBe(pkg.version);
    expect(changelog.indexOf("## [Unreleased]")).toBeLessThan(
      changelog.indexOf(`## [${pkg.version}]`),
    );
  });

  it("the lockfile and the Helm chart carry package.json's version", () => {
    const lock = JSON.parse(read("package-lock.json")) as {
      version: string;
      packages: Record<string, { version?: string }>;
    };
    expect(lock.version).toBe(pkg.version);
    expect(lock.packages[""]?.version).toBe(pkg.version);
    const chart = read("deploy/helm/palette-chatops/Chart.yaml");
    expect(chart).toMatch(new RegExp(`^version: ${pkg.version.replaceAll(".", "\\.")}$`, "m"));
    expect(chart).toMatch(new RegExp(`^appVersion: "${pkg.version.replaceAll(".", "\\.")}"$`, "m"));
  });

  it("CONTRIBUTING.md covers set-up, tests, benches, the layering rule and how a change is described", () => {
    const contributing = read("CONTRIBUTING.md");
    for (const heading of [
      "Set-up",
      "Tests",
      "Benchmarks",
      "The layering rule",
      "Describing a change",
    ]) {
      expect(contributing).toMatch(new RegExp(`^## ${heading}$`, "m"));
    }
    expect(contributing).toContain("npm ci");
    expect(contributing).toContain("npm test");
    expect(contributing).toContain("npm run bench");
    expect(contributing).toContain(".dependency-cruiser.cjs");
  });

  it("SECURITY.md says how to report privately, the supported versions, and links the security model", () => {
    const security = read("SECURITY.md");
    expect(security).toMatch(/^## Reporting a vulnerability$/m);
    expect(security).toMatch(/privately/);
    expect(security).toMatch(/^## Supported versions$/m);
    const [major, minor] = parts(pkg.version);
    expect(security).toContain(`| ${major}.${minor}.x`);
    expect(security).toContain("](docs/security.md)");
  });
});
