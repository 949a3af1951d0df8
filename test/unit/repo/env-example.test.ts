import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CONFIG_VARIABLES } from "../../../src/config.ts";

/**
 * `.env.example` at the repository root lists every variable src/config.ts reads, each with a
 * comment saying what it is, and nothing else: a variable added to the code without the
 * example, or left in the example after the code dropped it, fails here. It holds no secret.
 */

const ROOT = join(import.meta.dirname, "..", "..", "..");
const EXAMPLE = join(ROOT, ".env.example");

/** every `NAME=value` line, commented out (`# NAME=`) or not, with the line before it */
function entries(text: string): Array<{ name: string; value: string; before: string }> {
  const lines = text.split("\n");
  const found: Array<{ name: string; value: string; before: string }> = [];
  lines.forEach((line, index) => {
    const match = /^#?\s?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (match) found.push({ name: match[1]!, value: match[2]!, before: lines[index - 1] ?? "" });
  });
  return found;
}

/** The variables config.ts reads: its schema's keys and any `env.NAME` outside it. */
function variablesConfigReads(): string[] {
  const source = readFileSync(join(ROOT, "src", "config.ts"), "utf8");
  const direct = [...source.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)].map((match) => match[1]!);
  return [...new Set([...CONFIG_VARIABLES, ...direct])].sort();
}

describe(".env.example", () => {
  it("exists at the repository root", () => {
    expect(existsSync(EXAMPLE)).toBe(true);
  });

  it("lists exactly the variables src/config.ts reads, each once", () => {
    const names = entries(readFileSync(EXAMPLE, "utf8")).map((entry) => entry.name);
    const wanted = variablesConfigReads();
    expect(
      wanted.filter((name) => !names.includes(name)),
      "read by config.ts, missing from .env.example",
    ).toEqual([]);
    expect(
      names.filter((name) => !wanted.includes(name)),
      "in .env.example, not read by config.ts",
    ).toEqual([]);
    expect(
      names.filter((name, index) => names.indexOf(name) !== index),
      "listed twice",
    ).toEqual([]);
  });

  it("says what each variable is, in a comment above it", () => {
    for (const entry of entries(readFileSync(EXAMPLE, "utf8"))) {
      expect(entry.before, `${entry.name} wants a comment line above it`).toMatch(/^#\s+\S/);
      expect(entry.before, `${entry.name}: a comment, not another variable`).not.toMatch(
        /^#?\s?[A-Z][A-Z0-9_]*=/,
      );
    }
  });

  it("holds no real secret: credentials are empty or placeholders", () => {
    const secret =
      /^(SLACK_BOT_TOKEN|SLACK_APP_TOKEN|SLACK_SIGNING_SECRET|PALETTE_API_KEY|PALETTE_PASSWORD|DATABASE_URL|IDENTITY_KEY|IDENTITY_KEY_PREVIOUS|ASSISTANT_API_KEY)$/;
    for (const entry of entries(readFileSync(EXAMPLE, "utf8"))) {
      if (!secret.test(entry.name)) continue;
      expect(
        entry.value === "" || /(…|\.\.\.|<[^>]+>|CHANGE_ME)/.test(entry.value),
        `${entry.name}=${entry.value} looks like a real value`,
      ).toBe(true);
    }
  });
});
