import { describe, expect, it } from "vitest";
import { alertsVerb } from "../../../src/commands/alerts.ts";
import { parse } from "../../../src/verb-kit/parse.ts";
import { checkSlackLimits } from "../../../src/views/limits.ts";
import { FakePalette, PROJECT, sampleFleet, testContext } from "../../support/fake-palette.ts";
import { asMessage, blocksText } from "../../support/reply-text.ts";
import { checkMessage } from "../../support/slack-limits.ts";

describe("alerts", () => {
  it("lists the alert kinds and the clusters whose health is not Healthy", async () => {
    const palette = new FakePalette(sampleFleet());
    const reply = asMessage(
      await alertsVerb.run(parse(`alerts project:${PROJECT}`), await testContext({ palette })),
    );
    const text = blocksText(reply.blocks);
    expect(text).toContain("ClusterHealth");
    expect(text).toContain("Cluster health alerts");
    expect(text).toContain("&lt;!channel&gt;");
    expect(text).toContain("node w-9 NotReady");
    expect(text).not.toContain("web-prod");
    expect(text).toContain(PROJECT);
    expect(palette.callsTo("searchClusters")[0]?.args[0]).toMatchObject({ projectUid: PROJECT });
    expect(palette.callsTo("listAlertComponents")[0]?.args[0]).toEqual({ projectUid: PROJECT });
    expect(checkSlackLimits(reply.blocks)).toEqual([]);
  });

  it("does not count a cluster whose health is not known yet (Unknown or none)", async () => {
    const palette = new FakePalette([
      ...sampleFleet().filter((cluster) => cluster.health !== "UnHealthy"),
      { ...sampleFleet()[0]!, uid: "u-unknown", name: "provisioning-1", health: "Unknown" },
    ]);
    const reply = asMessage(await alertsVerb.run(parse("alerts"), await testContext({ palette })));
    expect(blocksText(reply.blocks)).toContain("No cluster is raising an alert");
    expect(blocksText(reply.blocks)).not.toContain("provisioning-1");
  });

  it("says all is well when every cluster is Healthy", async () => {
    const palette = new FakePalette(
      sampleFleet().filter((cluster) => cluster.health !== "UnHealthy"),
    );
    const reply = asMessage(await alertsVerb.run(parse("alerts"), await testContext({ palette })));
    expect(blocksText(reply.blocks)).toContain("No cluster is raising an alert");
  });

  it("pages 200 unhealthy clusters, each page one message Slack takes", async () => {
    const fleet = Array.from({ length: 200 }, (_, index) => ({
      uid: `u${index}`,
      name: `sick-${index}`,
      state: "Running",
      health: "UnHealthy",
      healthReasons: ["x".repeat(300)],
      provider: "aws",
    }));
    const ctx = await testContext({ palette: new FakePalette(fleet) });
    const seen = new Set<string>();
    let command = "alerts";
    for (let page = 1; ; page++) {
      const reply = asMessage(await alertsVerb.run(parse(command), ctx));
      expect(checkSlackLimits(reply.blocks)).toEqual([]);
      expect(checkMessage({ text: reply.text, blocks: reply.blocks })).toBeUndefined();
      const text = blocksText(reply.blocks);
      for (const match of text.matchAll(/sick-\d+/g)) seen.add(match[0]);
      expect(text).toMatch(new RegExp(`Page ${page} of \\d+`));
      const next = JSON.stringify(reply.blocks).match(/"value":"(alerts[^"]*--page=(\d+))"/g);
      const nextPage = next
        ?.map((v) => /--page=(\d+)/.exec(v)![1])
        .find((n) => Number(n) === page + 1);
      if (!nextPage) break;
      command = `alerts --page=${nextPage}`;
      expect(page).toBeLessThan(20);
    }
    expect(seen.size).toBe(200);
  });

  it("refuses arguments it does not take", async () => {
    const reply = asMessage(await alertsVerb.run(parse("alerts foo"), await testContext()));
    expect(blocksText(reply.blocks)).toContain("Usage");
  });
});
