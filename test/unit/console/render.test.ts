import { describe, expect, it } from "vitest";
import { mrkdwnToText, renderBlocks } from "../../../src/console/render.ts";
import { clusterCardBlocks } from "../../../src/views/cluster-card.ts";

describe("renderBlocks", () => {
  it("renders a cluster card readably", () => {
    const blocks = clusterCardBlocks(
      {
        uid: "u1",
        name: "web-prod",
        projectUid: "p1",
        state: "Running",
        health: "Healthy",
        healthReasons: [],
        provider: "aws",
        tags: ["env"],
        scope: { projectUid: "p1" },
      },
      { now: 0, consoleUrl: "https://c.test/" },
    );
    const text = renderBlocks(blocks);
    expect(text).toContain("web-prod\n========");
    expect(text).toContain("  State: 🟢 Running");
    expect(text).toContain("  Health: ✅ Healthy");
    expect(text).toContain("[Nodes] [Workloads] [Kubeconfig] [Logs] [Open in Palette]");
    // the Actions… menu: each change that fits, as the command it runs (confirmed when picked)
    expect(text).toContain("[Actions… ▾]");
    expect(text).toContain("Scale a pool…: /palette scale u1 project:p1");
    expect(text).toContain("Nodes: /palette nodes u1 project:p1");
    expect(text).toContain("https://c.test/projects/p1/clusters/u1/overview");
    expect(text).not.toContain("*");
  });

  it("converts mrkdwn lightly and unescapes entities last", () => {
    expect(mrkdwnToText("*bold* _it_ <https://x.test|link> &lt;!channel&gt; :x:")).toBe(
      "bold it link (https://x.test) <!channel> ❌",
    );
    expect(mrkdwnToText("```a\nb```")).toBe("    a\n    b");
    expect(mrkdwnToText("snake_case_name")).toBe("snake_case_name");
  });

  it("strips terminal control sequences from data", () => {
    const text = renderBlocks([
      { type: "header", text: { type: "plain_text", text: "evil\u001b[2Jname" } },
      { type: "section", text: { type: "mrkdwn", text: "x\u0007y" } },
      { type: "divider" },
      { type: "context", elements: [{ type: "mrkdwn", text: "dim" }] },
    ]);
    expect([...text].some((char) => char !== "\n" && char.charCodeAt(0) < 0x20)).toBe(false);
    expect(text).toContain("evil[2Jname");
    expect(text).toContain("-".repeat(40));
  });

  it("dims context and bolds headers with colour on", () => {
    const text = renderBlocks(
      [
        { type: "header", text: { type: "plain_text", text: "H" } },
        { type: "context", elements: [{ type: "mrkdwn", text: "c" }] },
      ],
      { color: true },
    );
    expect(text).toContain("\u001b[1mH\u001b[0m");
    expect(text).toContain("\u001b[2mc\u001b[0m");
  });
});

describe("renderBlocks: a notification card", () => {
  it("shows the card's buttons and select by label, and no made-up /palette line for a card action", async () => {
    const { notificationCard } = await import("../../../src/views/notification.ts");
    const view = notificationCard(
      {
        cluster: {
          uid: "u1",
          name: "web-prod",
          project: "p1",
          state: "Running",
          health: "UnHealthy",
          tags: [],
        },
        kinds: ["health-lost"],
        lines: ["Health lost: Healthy → UnHealthy"],
        worse: true,
        alerts: [],
        at: "t",
      },
      {},
      { ack: { userId: "U0ONCALL", at: Date.UTC(2026, 0, 1, 14, 2) } },
    );
    const text = renderBlocks(view.blocks);
    expect(text).toContain("👀 Acknowledged by @U0ONCALL, 14:02 UTC");
    expect(text).toContain("[Snooze ▾] [Mute cluster…] [Nodes] [Workloads]");
    expect(text).toContain("Nodes: /palette nodes u1 project:p1");
    expect(text).not.toContain('/palette {"c"');
  });
});
