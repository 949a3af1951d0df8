import { describe, expect, it } from "vitest";
import { alertsVerb } from "../../../src/commands/alerts.ts";
import { clusterVerb } from "../../../src/commands/cluster.ts";
import { clustersVerb } from "../../../src/commands/clusters.ts";
import { submitLaunch } from "../../../src/launch/submit.ts";
import { dispatch } from "../../../src/registry/dispatch.ts";
import { parse } from "../../../src/verb-kit/parse.ts";
import { checkSlackLimits } from "../../../src/views/limits.ts";
import {
  FakePalette,
  OTHER_PROJECT,
  PROJECT,
  sampleFleet,
  testContext,
} from "../../support/fake-palette.ts";
import { SAMPLE_ANSWERS } from "../../support/launch-answers.ts";
import { asMessage, blocksText, buttonValues } from "../../support/reply-text.ts";

/** PALETTE_PROJECTS with two projects: reads without `project:` cover both. */
async function twoProjects() {
  const palette = new FakePalette(sampleFleet());
  return { palette, ctx: await testContext({ palette, projects: [PROJECT, OTHER_PROJECT] }) };
}

describe("reads cover every watched project", () => {
  it("clusters: one search per watched project, grouped by project, each with its own scope", async () => {
    const { palette, ctx } = await twoProjects();
    const reply = asMessage(await clustersVerb.run(parse("clusters"), ctx));
    const text = blocksText(reply.blocks);
    expect(text).toContain("web-prod"); // in PROJECT
    expect(text).toContain("vc-1"); // in OTHER_PROJECT
    expect(text).toContain("2 watched projects");
    expect(text.indexOf(PROJECT)).toBeLessThan(text.indexOf(OTHER_PROJECT));
    const scopes = palette
      .callsTo("searchClusters")
      .map((call) => (call.args[0] as { projectUid?: string }).projectUid);
    expect(scopes.sort()).toEqual([PROJECT, OTHER_PROJECT].sort());
    expect(checkSlackLimits(reply.blocks)).toEqual([]);
    expect(reply.text).toContain("in 2 projects");
  });

  it("clusters project:<uid> narrows to that project with one search", async () => {
    const { palette, ctx } = await twoProjects();
    const reply = asMessage(
      await clustersVerb.run(parse(`clusters project:${OTHER_PROJECT}`), ctx),
    );
    const text = blocksText(reply.blocks);
    expect(text).toContain("vc-1");
    expect(text).not.toContain("web-prod");
    expect(palette.callsTo("searchClusters")).toHaveLength(1);
  });

  it("clusters --page without project: is refused plainly (a page belongs to one project)", async () => {
    const { palette, ctx } = await twoProjects();
    const reply = asMessage(await clustersVerb.run(parse("clusters --page=abc"), ctx));
    expect(blocksText(reply.blocks)).toContain("goes with `project:&lt;uid&gt;`");
    expect(palette.callsTo("searchClusters")).toHaveLength(0);
  });

  it("clusters: a project with more than fits offers a button for that project alone", async () => {
    const many = Array.from({ length: 30 }, (_, index) => ({
      uid: `c${String(index).padStart(23, "0")}`,
      name: `edge-${index}`,
      projectUid: PROJECT,
      state: "Running",
      provider: "edge-native",
    }));
    const palette = new FakePalette([
      ...many,
      ...sampleFleet().filter((c) => c.projectUid === OTHER_PROJECT),
    ]);
    const ctx = await testContext({ palette, projects: [PROJECT, OTHER_PROJECT] });
    const reply = asMessage(await clustersVerb.run(parse("clusters"), ctx));
    expect(blocksText(reply.blocks)).toContain("…and 5 more in this project");
    expect(buttonValues(reply.blocks)).toEqual([`clusters project:${PROJECT}`]);
    expect(checkSlackLimits(reply.blocks)).toEqual([]);
  });

  it("alerts: every watched project, each under its own scope line", async () => {
    const { palette, ctx } = await twoProjects();
    const reply = asMessage(await alertsVerb.run(parse("alerts"), ctx));
    const text = blocksText(reply.blocks);
    expect(text).toContain(PROJECT);
    expect(text).toContain(OTHER_PROJECT);
    expect(palette.callsTo("listAlertComponents")).toHaveLength(2);
    expect(checkSlackLimits(reply.blocks)).toEqual([]);
  });

  it("cluster <name>: found in whichever watched project holds it", async () => {
    const { ctx } = await twoProjects();
    const reply = asMessage(await clusterVerb.run(parse("cluster vc-1"), ctx));
    const text = blocksText(reply.blocks);
    expect(text).toContain("vc-1");
    expect(text).toContain(OTHER_PROJECT);
  });

  it("cluster <name>: a name in two watched projects offers a choice, one button per project", async () => {
    const { ctx } = await twoProjects();
    const reply = asMessage(await clusterVerb.run(parse("cluster dup"), ctx));
    expect(blocksText(reply.blocks)).toContain("Pick one");
    const buttons = buttonValues(reply.blocks);
    expect(buttons).toHaveLength(2);
    expect(buttons.some((value) => value.includes(`project:${PROJECT}`))).toBe(true);
    expect(buttons.some((value) => value.includes(`project:${OTHER_PROJECT}`))).toBe(true);
  });
});

describe("PALETTE_PROJECTS is the boundary", () => {
  const OUTSIDE = "proj00000000000000000zz9";

  it.each([
    "clusters",
    "cluster web-prod",
    "nodes web-prod",
    "workloads web-prod",
    "kubeconfig web-prod",
    "alerts",
    "subscribe",
  ])("`%s project:<outside>` is refused before any Palette call, and audited", async (text) => {
    const { palette, ctx } = await twoProjects();
    const reply = asMessage(await dispatch(`${text} project:${OUTSIDE}`, ctx));
    expect(blocksText(reply.blocks)).toContain("is not one this bot watches");
    expect(blocksText(reply.blocks)).toContain(PROJECT);
    expect(palette.calls).toEqual([]);
    expect((await ctx.audit.recent())[0]).toMatchObject({
      outcome: "denied",
      target: `${text.split(" ")[0]} project:${OUTSIDE}`,
    });
  });

  it("a launch submitted for a project outside is refused on the project field, and audited", async () => {
    const { palette, ctx } = await twoProjects();
    const outcome = await submitLaunch(
      {
        submissionKey: "test:outside",
        provider: "aws",
        projectUid: OUTSIDE,
        raw: { ...SAMPLE_ANSWERS.aws },
        requester: ctx.requester,
      },
      ctx,
    );
    expect(outcome).toMatchObject({ kind: "invalid", errors: { project: expect.any(String) } });
    expect(palette.calls.filter((call) => call.method === "createCluster")).toEqual([]);
    expect((await ctx.audit.recent())[0]).toMatchObject({ action: "launch", outcome: "denied" });
  });
});
