import { describe, expect, it } from "vitest";
import { quoteArg } from "../../../src/model/command-text.ts";
import {
  editDistance,
  flagValue,
  MAX_COMMAND_LENGTH,
  parse,
  parseCommand,
  suggest,
  tokenize,
} from "../../../src/verb-kit/parse.ts";

describe("parse", () => {
  it("reads an empty text as help", () => {
    const command = parse("   ");
    expect(command.verb).toBe("help");
    expect(command.args).toEqual([]);
    expect(command.raw).toBe("");
  });

  it("lower-cases the verb and keeps args as typed", () => {
    const command = parse("  Clusters Dev team:core ");
    expect(command.verb).toBe("clusters");
    expect(command.args).toEqual(["Dev", "team:core"]);
    expect(command.raw).toBe("Clusters Dev team:core");
  });

  it("takes project:, repeatable tag: and flags out of the args", () => {
    const command = parse("clusters prod project:abc123 tag:env tag:team:core --share --Page=AbC=");
    expect(command.args).toEqual(["prod"]);
    expect(command.project).toBe("abc123");
    expect(command.tags).toEqual(["env", "team:core"]);
    expect([...command.flags]).toEqual(["share", "page=AbC="]);
    expect(flagValue(command, "page")).toBe("AbC=");
  });

  it("reads double, single and curly quoted values as one arg", () => {
    expect(parse(`cluster "my cluster" 'it''s' “curly one”`).args).toEqual([
      "my cluster",
      "its",
      "curly one",
    ]);
  });

  it("keeps a quoted option or flag literal", () => {
    const command = parse(`cluster "project:x" '--share'`);
    expect(command.args).toEqual(["project:x", "--share"]);
    expect(command.project).toBeUndefined();
    expect(command.flags.size).toBe(0);
  });

  it("takes the rest of the text as one value after an unbalanced quote", () => {
    expect(parse(`cluster "web prod --share`).args).toEqual(["web prod --share"]);
    expect(parse(`cluster 'x`).args).toEqual(["x"]);
    expect(parse(`"`).verb).toBe("");
  });

  it("answers project: with nothing after it", () => {
    const { problems } = parseCommand("clusters project:");
    expect(problems[0]).toMatch(/needs a project UID/);
    expect(parseCommand("alerts project:  ").problems[0]).toMatch(/needs a project UID/);
  });

  it("answers an empty tag: and a bad project uid", () => {
    expect(parseCommand("clusters tag:").problems[0]).toMatch(/tag:/);
    expect(parseCommand('clusters project:"a b"').problems[0]).toMatch(/project UID/);
  });

  it("refuses control characters and over-long texts with a sentence, not an exception", () => {
    expect(parseCommand("clusters\u0000dev").problems[0]).toMatch(/control characters/);
    expect(parseCommand("clusters \u001b[2J").problems[0]).toMatch(/control characters/);
    const long = `clusters ${"a".repeat(4000)}`;
    expect(parseCommand(long).problems[0]).toMatch(String(MAX_COMMAND_LENGTH));
  });

  it("treats tabs and newlines as spaces and keeps unicode", () => {
    const command = parse("cluster\tcafé-☕\nmore");
    expect(command.verb).toBe("cluster");
    expect(command.args).toEqual(["café-☕", "more"]);
  });

  it("round-trips values through quoteArg", () => {
    for (const value of ["plain", "two words", `say "hi"`, `it's "x"`, ""]) {
      const tokens = tokenize(`verb ${quoteArg(value)}`);
      expect(tokens[1]?.text).toBe(
        value.includes('"') && value.includes("'") ? value.replace(/"/g, "") : value,
      );
    }
  });
});

describe("suggest", () => {
  const verbs = ["help", "clusters", "cluster", "nodes", "workloads", "kubeconfig", "alerts"];

  it("finds near misses", () => {
    expect(suggest("clustrs", verbs)).toBe("clusters");
    expect(suggest("nodez", verbs)).toBe("nodes");
    expect(suggest("kubeconfg", verbs)).toBe("kubeconfig");
    expect(suggest("work", verbs)).toBe("workloads");
  });

  it("stays quiet for unrelated words", () => {
    expect(suggest("banana", verbs)).toBeUndefined();
    expect(suggest("", verbs)).toBeUndefined();
  });

  it("computes edit distance", () => {
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("same", "same")).toBe(0);
  });
});
