import { describe, expect, it } from "vitest";
import { typedCommandsFor, ungroundedNames } from "../../../src/assistant/ground.ts";
import { proposalCommand, readCommand, trimToBudget } from "../../../src/assistant/reads.ts";

describe("ungroundedNames", () => {
  const readText = "[clusters]\n*web-prod* · Running · Healthy · aws\nUID 5f1e2d3c4b5a69788796a5b4";

  it("passes an answer whose names all come from a read", () => {
    expect(
      ungroundedNames({ answer: "`web-prod` is Running (5f1e2d3c4b5a69788796a5b4).", readText }),
    ).toEqual([]);
  });

  it("names a cluster in code or bold that no read returned", () => {
    expect(ungroundedNames({ answer: "Look at `ghost-prod-9` and *web-prod*.", readText })).toEqual(
      ["ghost-prod-9"],
    );
  });

  it("names a UID no read returned, wherever it stands", () => {
    expect(ungroundedNames({ answer: "see 0123456789abcdef01234567", readText })).toEqual([
      "0123456789abcdef01234567",
    ]);
  });

  it("catches a known cluster's name in plain prose that was not read", () => {
    expect(
      ungroundedNames({ answer: "billing-eu is fine", readText, knownNames: ["billing-eu"] }),
    ).toEqual(["billing-eu"]);
  });

  it("leaves command words, numbers and sizes alone", () => {
    expect(
      ungroundedNames({ answer: "Run `nodes web-prod` or `scale web-prod 5`.", readText }),
    ).toEqual([]);
  });
});

describe("reads", () => {
  it("builds the typed command of a read", () => {
    expect(readCommand("nodes", { cluster: "web-prod" })).toEqual({
      command: "nodes web-prod",
      cluster: "web-prod",
    });
    expect(readCommand("list_clusters", { tags: ["env:prod"], project: "abc123" })).toEqual({
      command: "clusters tag:env:prod project:abc123",
    });
  });

  it("refuses arguments that would smuggle grammar into the command", () => {
    expect(readCommand("nodes", { cluster: "web --share" })).toHaveProperty("refused");
    expect(readCommand("nodes", { cluster: "x project:other" })).toHaveProperty("refused");
    expect(readCommand("why", { cluster: "web", since: "1d; delete" })).toHaveProperty("refused");
    expect(readCommand("nodes", {})).toHaveProperty("refused");
  });

  it("turns a proposal into the typed change verb", () => {
    expect(proposalCommand({ verb: "scale", cluster: "web", args: ["workers", "5"] })).toEqual({
      command: "scale web workers 5",
      cluster: "web",
    });
    expect(proposalCommand({ verb: "repave", cluster: "web" })).toMatchObject({
      command: "repave approve web",
    });
    expect(proposalCommand({ verb: "delete", cluster: "prod --yes" })).toHaveProperty("refused");
  });

  it("trims a read to its budget at a line and says so", () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n");
    const trimmed = trimToBudget(text, 100);
    expect(trimmed.length).toBeLessThan(250);
    expect(trimmed).toContain("more line(s) left out");
  });

  it("suggests typed commands for a question", () => {
    expect(typedCommandsFor("why did the nodes of web-prod go down?")).toEqual(
      expect.arrayContaining(["nodes <cluster>", "why <cluster>"]),
    );
  });
});
