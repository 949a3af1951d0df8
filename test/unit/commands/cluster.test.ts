import { describe, expect, it } from "vitest";
import { clusterVerb } from "../../../src/commands/cluster.ts";
import { RUN_COMMAND_ACTION } from "../../../src/model/command-text.ts";
import { PaletteError } from "../../../src/palette/errors.ts";
import { parse } from "../../../src/verb-kit/parse.ts";
import { checkSlackLimits } from "../../../src/views/limits.ts";
import {
  FakePalette,
  OTHER_PROJECT,
  PROJECT,
  sampleFleet,
  testContext,
} from "../../support/fake-palette.ts";
import { asMessage, blocksText, buttonValues } from "../../support/reply-text.ts";

describe("cluster", () => {
  it("shows the card of a cluster found by name, with buttons and a console link", async () => {
    const palette = new FakePalette(sampleFleet());
    const ctx = await testContext({ palette, projects: [PROJECT] });
    const reply = asMessage(await clusterVerb.run(parse("cluster web-prod"), ctx));
    expect(reply.visibility).toBe("ephemeral");
    const text = blocksText(reply.blocks);
    for (const expected of [
      "web-prod",
      "Running",
      "Healthy",
      "aws",
      "1.30.4",
      "3d 0h",
      "web-prod.example.com:6443",
      "Default",
    ]) {
      expect(text).toContain(expected);
    }
    const uid = "c0000000000000000000001a";
    expect(buttonValues(reply.blocks)).toEqual([
      `nodes ${uid} project:${PROJECT}`,
      `workloads ${uid} project:${PROJECT}`,
      `kubeconfig ${uid} project:${PROJECT}`,
      `logs ${uid} project:${PROJECT}`,
      `why ${uid} project:${PROJECT}`,
    ]);
    expect(text).toContain(
      `https://console.example.com/projects/${PROJECT}/clusters/${uid}/overview`,
    );
    const actions = reply.blocks.find((block) => block.type === "actions");
    const ids =
      actions?.type === "actions"
        ? actions.elements.map((element) => ("action_id" in element ? element.action_id : ""))
        : [];
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.slice(0, 3).every((id) => id?.startsWith(RUN_COMMAND_ACTION))).toBe(true);
    expect(checkSlackLimits(reply.blocks)).toEqual([]);
  });

  it("finds a cluster by UID with getCluster", async () => {
    const palette = new FakePalette(sampleFleet());
    const ctx = await testContext({ palette, projects: [OTHER_PROJECT] });
    const reply = asMessage(
      await clusterVerb.run(parse("cluster c0000000000000000000005e --share"), ctx),
    );
    expect(reply.visibility).toBe("in_channel");
    expect(blocksText(reply.blocks)).toContain("vc-1");
    expect(palette.callsTo("searchClusters")).toHaveLength(0);
  });

  it("links tenant clusters to the admin console", async () => {
    const palette = new FakePalette([
      { uid: "t0000000000000000000001a", name: "tenant-one", state: "Running", provider: "aws" },
    ]);
    const reply = asMessage(
      await clusterVerb.run(parse("cluster tenant-one"), await testContext({ palette })),
    );
    expect(blocksText(reply.blocks)).toContain(
      "https://console.example.com/admin/clusters/t0000000000000000000001a/overview",
    );
  });

  it("still shows a card when the overview fails", async () => {
    const palette = new FakePalette(sampleFleet());
    palette.failOn(
      "getClusterOverview",
      new PaletteError("server", 500, undefined, "boom", "r", "GET /v1/dashboard"),
    );
    const reply = asMessage(
      await clusterVerb.run(
        parse(`cluster web-prod project:${PROJECT}`),
        await testContext({ palette }),
      ),
    );
    expect(blocksText(reply.blocks)).toContain("web-prod");
  });

  it("escapes a hostile name everywhere, including the header", async () => {
    const reply = asMessage(
      await clusterVerb.run(parse(`cluster "<!channel>"`), await testContext()),
    );
    const text = blocksText(reply.blocks);
    expect(text).toContain("&lt;!channel&gt;");
    expect(text).toContain("node w-9 NotReady");
    expect(checkSlackLimits(reply.blocks)).toEqual([]);
  });

  it("asks which cluster when none or several are given", async () => {
    expect(
      blocksText(asMessage(await clusterVerb.run(parse("cluster"), await testContext())).blocks),
    ).toMatch(/Which cluster/);
    expect(
      blocksText(
        asMessage(await clusterVerb.run(parse("cluster a b"), await testContext())).blocks,
      ),
    ).toMatch(/One cluster/);
  });
});
