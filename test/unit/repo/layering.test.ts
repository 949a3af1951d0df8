import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The one layering rule dependency-cruiser cannot see, because it is about strings, not imports:
 * only the Palette client (src/palette/) and its stand-in (src/simulator/) know Palette's paths.
 * Comments may mention them; code may not.
 */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/** The file without its comments (line and block), so only code and strings are searched. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

describe("layering beyond imports", () => {
  it("names Palette API paths only in src/palette/ and src/simulator/", () => {
    const offenders = sources("src")
      .filter((file) => !/^src\/(palette|simulator)\//.test(file))
      .filter((file) => /\/v1\/[a-z]/i.test(withoutComments(readFileSync(file, "utf8"))));
    expect(offenders).toEqual([]);
  });

  it("finds a Palette path when one is written in code (the check can fail)", () => {
    expect(/\/v1\/[a-z]/i.test(withoutComments('const path = "/v1/spectroclusters";'))).toBe(true);
    expect(/\/v1\/[a-z]/i.test(withoutComments("// a comment about /v1/events"))).toBe(false);
  });
});
