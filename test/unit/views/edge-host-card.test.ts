import { describe, expect, it } from "vitest";
import {
  type EdgeHostCardData,
  edgeHostCardBlocks,
  edgeHostCardText,
} from "../../../src/views/edge-host-card.ts";
import { edgeHostListBlocks, edgeHostRowText } from "../../../src/views/edge-host-list.ts";
import { checkSlackLimits } from "../../../src/views/limits.ts";

/** `/palette edge host`'s card (issue 39, item 3): Slack's limits, escaping, the dark line. */

const T0 = Date.UTC(2026, 0, 10, 2, 14);

function card(overrides: Partial<EdgeHostCardData> = {}): EdgeHostCardData {
  return {
    uid: "h1",
    name: "store-0142-a",
    projectUid: "p1",
    state: "in-use",
    health: "healthy",
    agentVersion: "v4.5.1",
    site: "store-0142",
    cluster: { uid: "c1", name: "store-0142" },
    architecture: "amd64",
    cpuCores: 4,
    memoryMB: 8192,
    gpus: [],
    consoleUrl: "https://console.example.com/",
    ...overrides,
  };
}

describe("edge host card", () => {
  it("a dark host: dark since as a Slack date, and the same in the fallback text", () => {
    const data = card({ health: "unhealthy", unhealthySince: T0, lastSeenHealthy: T0 - 60_000 });
    const text = JSON.stringify(edgeHostCardBlocks(data));
    expect(text).toContain(`*Dark since* <!date^${T0 / 1000}^`);
    expect(text).toContain(`<!date^${T0 / 1000 - 60}^`);
    expect(edgeHostCardText(data)).toBe(
      "Edge host store-0142-a: in-use, unhealthy, dark since 2026-01-10 02:14 UTC",
    );
  });

  it("a healthy host has no dark line; hardware and buttons are shown", () => {
    const text = JSON.stringify(
      edgeHostCardBlocks(card({ gpus: [{ vendor: "NVIDIA", model: "T4", count: 2 }] })),
    );
    expect(text).not.toContain("Dark since");
    expect(text).toContain("amd64 · 4 CPU · 8 GiB · 2× NVIDIA T4");
    expect(text).toContain('"value":"why h1 project:p1"');
    expect(text).toContain('"value":"cluster c1 project:p1"');
    expect(text).toContain("https://console.example.com/projects/p1/clusters/edge/h1/overview");
  });

  it("escapes every Palette-supplied string and stays under Slack's limits with huge values", () => {
    const long = "<!channel> *x* ".repeat(400);
    const blocks = edgeHostCardBlocks(
      card({
        name: long,
        healthMessage: long,
        agentVersion: long,
        site: long,
        cluster: { uid: "c1", name: long },
        architecture: long,
        shellState: long,
        gpus: Array.from({ length: 50 }, () => ({ vendor: long, model: long, count: 1 })),
      }),
    );
    expect(checkSlackLimits(blocks)).toEqual([]);
    // mrkdwn is where Slack acts on `<!channel>`; the header is plain_text, which it never parses
    const mrkdwn = JSON.stringify(blocks.slice(1));
    expect(mrkdwn).toContain("&lt;!channel&gt;");
    expect(mrkdwn).not.toContain("<!channel>");
  });
});

describe("edge host list", () => {
  it("twenty rows of huge escaped names in three projects stay under Slack's limits", () => {
    const long = "<!channel> *x* ".repeat(300);
    const groups = ["p1", "p2", "p3"].map((projectUid) => ({
      scope: { projectUid, projectName: long },
      page: 2,
      next: `edge hosts unhealthy project:${projectUid} --page=3`,
      hosts: Array.from({ length: 20 }, () => ({
        name: long,
        state: long,
        health: "unhealthy",
        clusterName: long,
      })),
    }));
    const blocks = edgeHostListBlocks({ groups, filter: long });
    expect(checkSlackLimits(blocks)).toEqual([]);
    const text = JSON.stringify(blocks);
    expect(text).not.toContain("<!channel>");
    expect(edgeHostRowText({ name: "a`b", health: "healthy", state: "in-use" })).toContain("🟢");
  });
});
