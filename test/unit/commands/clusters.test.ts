import { describe, expect, it } from "vitest";
import { clustersVerb, nextPageCommand } from "../../../src/commands/clusters.ts";
import { parse } from "../../../src/verb-kit/parse.ts";
import { checkSlackLimits } from "../../../src/views/limits.ts";
import { FakePalette, PROJECT, sampleFleet, testContext } from "../../support/fake-palette.ts";
import { asMessage, blocksText, buttonValues } from "../../support/reply-text.ts";

describe("clusters", () => {
  it("lists the default project's clusters, ephemeral, saying the scope", async () => {
    const palette = new FakePalette(sampleFleet());
    const ctx = await testContext({ palette, projects: [PROJECT] });
    const reply = asMessage(await clustersVerb.run(parse("clusters"), ctx));
    expect(reply.visibility).toBe("ephemeral");
    const text = blocksText(reply.blocks);
    expect(text).toContain("web-prod");
    expect(text).toContain(PROJECT);
    expect(text).not.toContain("vc-1");
    expect(palette.callsTo("searchClusters")[0]?.args[0]).toMatchObject({
      projectUid: PROJECT,
      tags: [],
      limit: 50,
    });
    expect(checkSlackLimits(reply.blocks)).toEqual([]);
  });

  it("treats plain args as tags and --share as in_channel", async () => {
    const palette = new FakePalette(sampleFleet());
    const ctx = await testContext({ palette });
    const reply = asMessage(
      await clustersVerb.run(parse("clusters env tag:team:core --share"), ctx),
    );
    expect(reply.visibility).toBe("in_channel");
    expect(palette.callsTo("searchClusters")[0]?.args[0]).toMatchObject({
      tags: ["env", "team:core"],
    });
    expect(blocksText(reply.blocks)).toContain("tenant scope");
  });

  it("escapes a cluster called <!channel>", async () => {
    const reply = asMessage(await clustersVerb.run(parse("clusters"), await testContext()));
    const text = blocksText(reply.blocks);
    expect(text).toContain("&lt;!channel&gt;");
    expect(text).not.toContain("<!channel>");
    expect(reply.text).not.toContain("<!");
  });

  it("offers the next page as a button carrying the continue token", async () => {
    const fleet = Array.from({ length: 120 }, (_, index) => ({
      uid: `u${String(index).padStart(23, "0")}`,
      name: `c-${index}`,
      projectUid: PROJECT,
      state: "Running",
      health: "Healthy",
      provider: "aws",
      labels: { dev: "spectro__tag" },
    }));
    const palette = new FakePalette(fleet);
    const ctx = await testContext({ palette });
    const first = asMessage(await clustersVerb.run(parse(`clusters dev project:${PROJECT}`), ctx));
    const [next] = buttonValues(first.blocks);
    expect(next).toBe(`clusters dev project:${PROJECT} --page=50`);
    expect(blocksText(first.blocks)).toContain("50 of 120");
    const second = asMessage(await clustersVerb.run(parse(next!), ctx));
    expect(blocksText(second.blocks)).toContain("c-50");
    expect(palette.callsTo("searchClusters")[1]?.args[0]).toMatchObject({ continue: "50" });
    const third = asMessage(await clustersVerb.run(parse(buttonValues(second.blocks)[0]!), ctx));
    expect(buttonValues(third.blocks)).toEqual([]);
    expect(checkSlackLimits(third.blocks)).toEqual([]);
  });

  it("quotes odd tokens and tags in the next-page command", () => {
    const command = nextPageCommand(["two words"], undefined, "a b");
    const parsed = parse(command);
    expect(parsed.args).toEqual(["two words"]);
    expect([...parsed.flags]).toEqual(["page=a b"]);
  });

  it("says so when nothing matches", async () => {
    const reply = asMessage(await clustersVerb.run(parse("clusters nope"), await testContext()));
    expect(blocksText(reply.blocks)).toMatch(/No cluster carries these tags/);
  });
});
