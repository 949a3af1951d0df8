import { describe, expect, it } from "vitest";
import { AnswerGrounding, KnownNames, typedCommandsFor } from "../../../src/assistant/ground.ts";
import { LineGate } from "../../../src/assistant/line-gate.ts";
import {
  proposalCommand,
  type ReadTool,
  readCommand,
  readResult,
  trimToBudget,
} from "../../../src/assistant/reads.ts";
import { READ_INPUTS } from "../../../src/assistant/tool-inputs.ts";
import { messageReply, notice } from "../../../src/verb-kit/reply.ts";
import type { Reply } from "../../../src/verb-kit/types.ts";

/** a read's data, as readResult hands it over */
function grounding(
  data: string[],
  known: string[] = [],
  consoleUrl = "https://console.example.com",
) {
  const g = new AnswerGrounding(new KnownNames(known), consoleUrl);
  g.add(data);
  return g;
}
const names = (g: AnswerGrounding, text: string) => {
  const verdict = g.answer(text);
  return verdict.ok ? [] : verdict.names;
};

describe("grounding from data", () => {
  const data = ["web-prod", "Running", "Healthy", "5f1e2d3c4b5a69788796a5b4", "web-prod-20"];

  it("passes an answer whose names all come from a read", () => {
    expect(names(grounding(data), "`web-prod` is Running (5f1e2d3c4b5a69788796a5b4).")).toEqual([]);
  });

  it("names a cluster in code or bold that no read returned", () => {
    expect(names(grounding(data), "Look at `ghost-prod-9` and *web-prod*.")).toEqual([
      "ghost-prod-9",
    ]);
  });

  it("matches whole tokens: web-prod-2 is not grounded by a read of web-prod-20", () => {
    expect(names(grounding(data), "web-prod-2 has 3 nodes NotReady")).toEqual(["web-prod-2"]);
  });

  it("checks every name-shaped token in prose, known to the poll or not", () => {
    expect(names(grounding(data), "the trouble is in ghost-prod-9 and db.internal")).toEqual([
      "ghost-prod-9",
      "db.internal",
    ]);
  });

  it("matches UIDs whatever their case, and refuses a UID no read returned", () => {
    expect(names(grounding(data), "UID 5F1E2D3C4B5A69788796A5B4")).toEqual([]);
    expect(names(grounding(data), "see 0123456789abcdef01234567")).toEqual([
      "0123456789abcdef01234567",
    ]);
  });

  it("catches a known cluster's plain name in prose that was not read", () => {
    expect(names(grounding(data, ["billing"]), "billing is fine")).toEqual(["billing"]);
    expect(names(grounding(data, ["web-prod"]), "web-prod is fine")).toEqual([]);
  });

  it("leaves command words, numbers, versions, sizes and dates alone", () => {
    expect(
      names(
        grounding(data),
        "Run `nodes web-prod` or `scale web-prod 5`: 3 of 5, 1.29.3, v1.30, 24h, 2026-11-28, e.g. k8s.",
      ),
    ).toEqual([]);
  });

  it("refuses a claim of having changed something", () => {
    const g = grounding(data);
    expect(g.answer("Done: I scaled `web-prod` to 5 nodes.")).toMatchObject({
      ok: false,
      claimsChange: true,
    });
    expect(g.answer("I have deleted web-prod.")).toMatchObject({ ok: false, claimsChange: true });
    expect(g.answer("`web-prod` can be scaled with the button below.")).toMatchObject({ ok: true });
  });

  it("keeps the console's links and a read's, and takes out any other", () => {
    const g = grounding([...data, "https://grafana.example.com/d/abc"]);
    const verdict = g.answer(
      "See https://console.example.com/admin/clusters, https://grafana.example.com/d/abc and https://evil.example.net/login.",
    );
    expect(verdict).toMatchObject({ ok: true });
    const text = (verdict as { text: string }).text;
    expect(text).toContain("https://console.example.com/admin/clusters");
    expect(text).toContain("https://grafana.example.com/d/abc");
    expect(text).not.toContain("evil.example.net");
    expect(text).toContain("(link removed: no read returned it)");
  });

  it("costs the answer's tokens, not the fleet's names: 50,000 known names, one line", () => {
    const known = new KnownNames(Array.from({ length: 50_000 }, (_, i) => `cluster-${i}`));
    expect(known.size).toBe(50_000);
    const g = new AnswerGrounding(known, "https://console.example.com");
    g.add(["cluster-7"]);
    expect(g.answer("cluster-7 is fine, cluster-49999 is not")).toMatchObject({
      ok: false,
      names: ["cluster-49999"],
    });
  });
});

describe("readResult", () => {
  const ask = (reply: Reply, tool: ReadTool = "cluster_overview") =>
    readResult(tool, reply, 10_000);

  it("a miss is a typed refusal: its name and its did-you-mean ground nothing", () => {
    const miss: Reply = {
      ...messageReply(
        notice(
          ":mag: No cluster named `ghost-prod-9` in all projects. Did you mean `ghost-prod-1`?",
        ),
        "No cluster named ghost-prod-9",
      ),
      miss: "unknown-cluster",
    };
    expect(ask(miss)).toMatchObject({ kind: "refused" });
  });

  it("a notice answers but grounds nothing; a data screen grounds its strings", () => {
    expect(ask(messageReply(notice("No open alerts."), "none"), "alerts")).toMatchObject({
      kind: "empty",
    });
    const freezes = ask(messageReply(notice("`web-prod` frozen until Monday"), "1"), "freezes");
    expect(freezes).toMatchObject({ kind: "data" });
  });
});

describe("the line gate", () => {
  it("checks each new line, holds a failing one and shows it once a read grounds it", () => {
    const g = grounding(["web-prod"]);
    const gate = new LineGate((line) => g.line(line));
    expect(gate.push("`web-prod` is fine.\n`db-1` is")).toBe(true);
    expect(gate.shown).toBe("`web-prod` is fine.");
    expect(gate.push(" down.\nMore.\n")).toBe(false);
    expect(gate.holding).toBe(true);
    g.add(["db-1"]);
    expect(gate.recheck()).toBe(true);
    expect(gate.shown).toBe("`web-prod` is fine.\n`db-1` is down.\nMore.");
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

describe("each read tool's own schema (issue 36 item 9)", () => {
  it("requires a cluster where the read is about one", () => {
    for (const tool of ["cluster_overview", "nodes", "workloads", "why"] as const) {
      expect(READ_INPUTS[tool].safeParse({}).success).toBe(false);
      expect(READ_INPUTS[tool].safeParse({ cluster: "web-prod" }).success).toBe(true);
    }
  });

  it("offers since only on why, and namespace only on workloads", () => {
    const offered = (tool: ReadTool) => Object.keys(READ_INPUTS[tool].shape);
    expect(offered("why")).toContain("since");
    expect(offered("list_clusters")).not.toContain("since");
    expect(offered("cluster_overview")).not.toContain("since");
    expect(offered("workloads")).toContain("namespace");
    expect(offered("nodes")).not.toContain("namespace");
    expect(offered("freezes")).toEqual([]);
  });
});
