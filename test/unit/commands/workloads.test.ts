import { describe, expect, it } from "vitest";
import { summarizeWorkloads, workloadsVerb } from "../../../src/commands/workloads.ts";
import { parse } from "../../../src/verb-kit/parse.ts";
import { checkSlackLimits } from "../../../src/views/limits.ts";
import { FakePalette, sampleFleet, testContext } from "../../support/fake-palette.ts";
import { asMessage, blocksText } from "../../support/reply-text.ts";

describe("workloads", () => {
  it("counts per namespace and names unhealthy pods", async () => {
    const reply = asMessage(
      await workloadsVerb.run(parse("workloads web-prod"), await testContext()),
    );
    const text = blocksText(reply.blocks);
    expect(text).toMatch(/default\s+2\s+1\s+1\s+0\s+0/);
    expect(text).toMatch(/kube-system\s+1\s+1\s+0\s+1\s+0/);
    expect(text).toMatch(/batch\s+1\s+0\s+0\s+0\s+1/);
    expect(text).toContain("default/api-2");
    expect(text).toContain("NotReady (api, 4 restarts)");
    expect(text).toContain("kube-system/coredns");
    expect(text).not.toContain("batch/once");
    expect(checkSlackLimits(reply.blocks)).toEqual([]);
  });

  it("passes namespaces to Palette and filters what comes back", async () => {
    const palette = new FakePalette(sampleFleet());
    const reply = asMessage(
      await workloadsVerb.run(parse("workloads web-prod default"), await testContext({ palette })),
    );
    expect(palette.callsTo("getWorkloads")[0]?.args[1]).toEqual(["default"]);
    const text = blocksText(reply.blocks);
    expect(text).toContain("default");
    expect(text).not.toContain("kube-system");
  });

  it("refuses a namespace that Kubernetes would not accept", async () => {
    const reply = asMessage(
      await workloadsVerb.run(parse("workloads web-prod Bad_NS"), await testContext()),
    );
    expect(blocksText(reply.blocks)).toMatch(/not a Kubernetes namespace/);
  });

  it("summarizes 300 namespaces within Slack's limits", () => {
    const pods = Array.from({ length: 300 }, (_, index) => ({
      metadata: { namespace: `ns-${index}`, entity: { name: `p-${index}` } },
      status: { phase: "Failed" },
    }));
    const summary = summarizeWorkloads({ spec: { pods } }, []);
    expect(summary.namespaces).toHaveLength(300);
    expect(summary.unhealthy).toHaveLength(300);
  });
});
