import { describe, expect, it } from "vitest";
import { alertsBlocks } from "../../../src/views/alerts.ts";
import { clusterCardBlocks, paletteClusterUrl } from "../../../src/views/cluster-card.ts";
import { clusterListBlocks } from "../../../src/views/cluster-list.ts";
import { healthEmoji, stateEmoji } from "../../../src/views/emoji.ts";
import { helpBlocks } from "../../../src/views/help.ts";
import { checkSlackLimits } from "../../../src/views/limits.ts";
import { nodeTableBlocks } from "../../../src/views/node-table.ts";
import { formatAge } from "../../../src/views/time.ts";
import { workloadsBlocks } from "../../../src/views/workloads.ts";
import { blocksText } from "../../support/reply-text.ts";

const HOSTILE = "<!channel> & <@U1> *`x`*";
const LONG = "n".repeat(5000);

describe("views fit Slack for any input", () => {
  it("clamps 200 clusters with …and N more", () => {
    const items = Array.from({ length: 200 }, (_, i) => ({
      uid: `u${i}`,
      name: i % 2 ? HOSTILE : `${LONG}${i}`,
      state: "Running",
      health: "UnHealthy",
      provider: "aws",
      projectName: HOSTILE,
    }));
    const blocks = clusterListBlocks({
      items,
      scope: {},
      tags: [HOSTILE],
      total: 1000,
      nextCommand: "clusters --page=x",
    });
    expect(checkSlackLimits(blocks)).toEqual([]);
    expect(blocksText(blocks)).toMatch(/…and \d+ more/);
    expect(blocksText(blocks)).toContain("200 of 1000");
  });

  it("builds a card from hostile and huge values", () => {
    const blocks = clusterCardBlocks(
      {
        uid: LONG,
        name: HOSTILE,
        projectUid: "p1",
        projectName: HOSTILE,
        state: HOSTILE,
        health: "UnHealthy",
        healthReasons: Array.from({ length: 20 }, () => LONG),
        provider: HOSTILE,
        kubernetesVersion: LONG,
        createdAt: "2025-12-31T22:00:00Z",
        apiEndpoint: LONG,
        cloudConfig: { kind: HOSTILE, uid: LONG },
        tags: Array.from({ length: 50 }, () => HOSTILE),
        scope: { projectUid: "p1" },
      },
      { now: Date.UTC(2026, 0, 1), consoleUrl: "https://c.test/" },
    );
    expect(checkSlackLimits(blocks)).toEqual([]);
    expect(blocksText(blocks)).toContain("2h 0m");
  });

  it("renders nodes, workloads and alerts for big inputs", () => {
    const machines = Array.from({ length: 300 }, (_, i) => ({
      name: `${HOSTILE}${i}`,
      state: "Failed",
      health: "UnHealthy",
      address: HOSTILE,
    }));
    const nodes = nodeTableBlocks({
      clusterName: HOSTILE,
      clusterUid: "u",
      scope: {},
      pools: Array.from({ length: 40 }, (_, i) => ({
        name: `${HOSTILE}${i}`,
        isControlPlane: i === 0,
        machines,
      })),
    });
    expect(checkSlackLimits(nodes)).toEqual([]);
    const workloads = workloadsBlocks({
      clusterName: LONG,
      clusterUid: "u",
      scope: {},
      filter: [HOSTILE],
      namespaces: Array.from({ length: 500 }, (_, i) => ({
        namespace: `${HOSTILE}-${i}`,
        pods: i,
        deployments: 1,
        statefulsets: 2,
        daemonsets: 3,
        jobs: 4,
      })),
      unhealthy: Array.from({ length: 500 }, (_, i) => ({
        namespace: HOSTILE,
        name: `p${i}`,
        problem: LONG,
      })),
    });
    expect(checkSlackLimits(workloads)).toEqual([]);
    expect(blocksText(workloads)).toMatch(/…and \d+ more namespaces/);
    const alerts = alertsBlocks({
      scope: { projectUid: "p" },
      kinds: Array.from({ length: 100 }, () => ({
        name: HOSTILE,
        description: LONG,
        channels: [HOSTILE],
      })),
      raising: Array.from({ length: 300 }, (_, i) => ({
        uid: `u${i}`,
        name: HOSTILE,
        health: "UnHealthy",
        reason: LONG,
      })),
    });
    expect(checkSlackLimits(alerts)).toEqual([]);
  });

  it("escapes help text", () => {
    const blocks = helpBlocks([{ usage: "x <y>", summary: HOSTILE, examples: [HOSTILE] }]);
    expect(checkSlackLimits(blocks)).toEqual([]);
  });
});

describe("small helpers", () => {
  it("maps states and health to emoji", () => {
    expect(stateEmoji("Running")).toBe(":large_green_circle:");
    expect(stateEmoji("Provisioning")).toBe(":hourglass_flowing_sand:");
    expect(stateEmoji("Pending")).toBe(":white_circle:");
    expect(stateEmoji("Deleting")).toBe(":wastebasket:");
    expect(stateEmoji("Failed")).toBe(":red_circle:");
    expect(stateEmoji("Weird")).toBe(":grey_question:");
    expect(healthEmoji("Healthy")).toBe(":white_check_mark:");
    expect(healthEmoji("UnHealthy")).toBe(":warning:");
    expect(healthEmoji(undefined)).toBe(":grey_question:");
  });

  it("formats ages and console links", () => {
    const now = Date.UTC(2026, 0, 10);
    expect(formatAge("2026-01-09T23:59:30Z", now)).toBe("just now");
    expect(formatAge("2026-01-09T23:00:00Z", now)).toBe("1h 0m");
    expect(formatAge("2026-01-01T00:00:00Z", now)).toBe("9d 0h");
    expect(formatAge("garbage", now)).toBeUndefined();
    expect(paletteClusterUrl("https://c.test/", "u 1", "p")).toBe(
      "https://c.test/projects/p/clusters/u%201/overview",
    );
    expect(paletteClusterUrl("https://c.test", "u")).toBe(
      "https://c.test/admin/clusters/u/overview",
    );
  });
});
