import { describe, expect, it } from "vitest";
import { nodesVerb } from "../../../src/commands/nodes.ts";
import { parse } from "../../../src/verb-kit/parse.ts";
import { checkSlackLimits } from "../../../src/views/limits.ts";
import { FakePalette, PROJECT, sampleFleet, testContext } from "../../support/fake-palette.ts";
import { asMessage, blocksText } from "../../support/reply-text.ts";
import { checkMessage } from "../../support/slack-limits.ts";

describe("nodes", () => {
  it("follows cloudConfigRef to pools and machines", async () => {
    const palette = new FakePalette(sampleFleet());
    const reply = asMessage(
      await nodesVerb.run(parse("nodes web-prod"), await testContext({ palette })),
    );
    const text = blocksText(reply.blocks);
    expect(text).toContain("control-plane");
    expect(text).toContain("(control plane)");
    expect(text).toContain("workers");
    expect(text).toContain("1/2 healthy");
    expect(text).toContain("w-2");
    expect(text).toContain("10.0.0.3");
    expect(text).toContain("UnHealthy");
    expect(palette.callsTo("getCloudConfig")[0]?.args.slice(0, 2)).toEqual([
      "aws",
      "cc-c0000000000000000000001a",
    ]);
    expect(
      palette
        .callsTo("listMachines")
        .map((call) => call.args[2])
        .sort(),
    ).toEqual(["control-plane", "workers"]);
    expect(palette.callsTo("listMachines")[0]?.args[3]).toEqual({ projectUid: PROJECT });
    expect(reply.visibility).toBe("ephemeral");
    expect(checkSlackLimits(reply.blocks)).toEqual([]);
  });

  it("explains a cluster without a cloud config", async () => {
    const reply = asMessage(await nodesVerb.run(parse("nodes vc-1"), await testContext()));
    expect(blocksText(reply.blocks)).toMatch(/no cloud config/);
  });

  it("pages huge pools, each page one message Slack takes", async () => {
    const machines = Array.from({ length: 500 }, (_, index) => ({
      name: `m-${index}-${"x".repeat(60)}`,
      state: "Running",
      health: "Healthy",
    }));
    const pools = Array.from({ length: 30 }, (_, index) => ({ name: `pool-${index}`, machines }));
    const palette = new FakePalette([
      { uid: "big", name: "big", state: "Running", provider: "aws", pools },
    ]);
    const ctx = await testContext({ palette });
    const first = asMessage(await nodesVerb.run(parse("nodes big"), ctx));
    expect(checkSlackLimits(first.blocks)).toEqual([]);
    expect(checkMessage({ text: first.text, blocks: first.blocks })).toBeUndefined();
    const pages = Number(/Page 1 of (\d+)/.exec(blocksText(first.blocks))?.[1]);
    expect(pages).toBeGreaterThan(1);
    expect(JSON.stringify(first.blocks)).toContain('"value":"nodes big --page=2"');
    const last = asMessage(await nodesVerb.run(parse(`nodes big --page=${pages}`), ctx));
    expect(checkMessage({ text: last.text, blocks: last.blocks })).toBeUndefined();
    expect(blocksText(last.blocks)).toContain(`Page ${pages} of ${pages}`);
    expect(blocksText(last.blocks)).toMatch(/…and 10 more pools/);
    expect(JSON.stringify(last.blocks)).toContain(`"value":"nodes big --page=${pages - 1}"`);
  });
});
