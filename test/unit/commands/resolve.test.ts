import { describe, expect, it } from "vitest";
import { PaletteError } from "../../../src/palette/errors.ts";
import { replayWith, resolveCluster } from "../../../src/verb-kit/resolve.ts";
import { checkSlackLimits } from "../../../src/views/limits.ts";
import {
  FakePalette,
  OTHER_PROJECT,
  PROJECT,
  sampleFleet,
  testContext,
} from "../../support/fake-palette.ts";
import { blocksText, buttonValues, rendered } from "../../support/reply-text.ts";

describe("resolveCluster", () => {
  it("offers one button per cluster when a name matches several", async () => {
    const ctx = await testContext();
    const result = await resolveCluster("dup", [{}], ctx, replayWith("nodes"));
    expect(result.kind).toBe("reply");
    if (result.kind !== "reply") return;
    expect(result.reason).toBe("ambiguous");
    expect(buttonValues(rendered(result.reply).blocks)).toEqual([
      `nodes c0000000000000000000003c project:${PROJECT}`,
      `nodes c0000000000000000000004d project:${OTHER_PROJECT}`,
    ]);
    expect(checkSlackLimits(rendered(result.reply).blocks)).toEqual([]);
  });

  it("carries extra args into the choice buttons", async () => {
    const result = await resolveCluster(
      "dup",
      [{}],
      await testContext(),
      replayWith("workloads", ["default"]),
    );
    if (result.kind !== "reply") throw new Error("expected choices");
    expect(buttonValues(rendered(result.reply).blocks)[0]).toBe(
      `workloads c0000000000000000000003c project:${PROJECT} default`,
    );
  });

  it("clamps a name shared by 200 clusters", async () => {
    const fleet = Array.from({ length: 200 }, (_, index) => ({
      uid: `u${index}`,
      name: "same",
      projectUid: PROJECT,
      state: "Running",
      provider: "aws",
    }));
    const result = await resolveCluster(
      "same",
      [{}],
      await testContext({ palette: new FakePalette(fleet) }),
      replayWith("cluster"),
    );
    if (result.kind !== "reply") throw new Error("expected choices");
    expect(checkSlackLimits(rendered(result.reply).blocks)).toEqual([]);
    expect(blocksText(rendered(result.reply).blocks)).toMatch(/…and \d+ more/);
  });

  it("finds a name with one name search, not a walk of every cluster", async () => {
    const fleet = Array.from({ length: 120 }, (_, index) => ({
      uid: `u${index}`,
      name: `c-${index}`,
      projectUid: PROJECT,
      state: "Running",
      provider: "aws",
    }));
    const palette = new FakePalette(fleet);
    const result = await resolveCluster(
      "c-77",
      [{ projectUid: PROJECT }],
      await testContext({ palette }),
      replayWith("cluster"),
    );
    expect(result.kind === "found" && result.cluster.uid).toBe("u77");
    expect(palette.callsTo("searchClusters").map((call) => call.args[0])).toEqual([
      { projectUid: PROJECT, name: "c-77", continue: undefined, limit: 50 },
    ]);
  });

  it("walks the scope only when the name search finds nothing (case-folded names, hints)", async () => {
    const palette = new FakePalette([
      { uid: "m1", name: "Web-Prod", projectUid: PROJECT, state: "Running", provider: "aws" },
    ]);
    const result = await resolveCluster(
      "web-prod",
      [{}],
      await testContext({ palette }),
      replayWith("x"),
    );
    expect(result.kind === "found" && result.cluster.uid).toBe("m1");
    expect(palette.callsTo("searchClusters").map((call) => call.args[0])).toEqual([
      { projectUid: undefined, name: "web-prod", continue: undefined, limit: 50 },
      { projectUid: undefined, continue: undefined, limit: 50 },
    ]);
  });

  it("says no cluster named X and suggests a near name", async () => {
    const result = await resolveCluster(
      "web-prd",
      [{}],
      await testContext(),
      replayWith("cluster"),
    );
    if (result.kind !== "reply") throw new Error("expected a reply");
    expect(result.reason).toBe("unknown");
    const text = blocksText(rendered(result.reply).blocks);
    expect(text).toContain("No cluster named");
    expect(text).toContain("/palette clusters");
    expect(text).toContain("web-prod");
  });

  it("finds a UID-looking name by its name search alone, without a GET first", async () => {
    const palette = new FakePalette([
      { uid: "x1", name: "build-2024-runner-01", state: "Running", provider: "aws" },
    ]);
    const result = await resolveCluster(
      "build-2024-runner-01",
      [{}],
      await testContext({ palette }),
      replayWith("cluster"),
    );
    expect(result.kind).toBe("found");
    expect(palette.callsTo("getCluster")).toHaveLength(0);
  });

  it("tries an id that is not 24 hex digits as a UID once no name matches", async () => {
    const palette = new FakePalette([
      { uid: "legacy-0001-cluster-id", name: "web", state: "Running", provider: "aws" },
    ]);
    const result = await resolveCluster(
      "legacy-0001-cluster-id",
      [{}],
      await testContext({ palette }),
      replayWith("cluster"),
    );
    expect(result.kind).toBe("found");
    if (result.kind === "found") expect(result.cluster.name).toBe("web");
    expect(palette.callsTo("searchClusters").length).toBeGreaterThan(0);
    expect(palette.callsTo("getCluster")).toHaveLength(1);
  });

  it("lets other Palette errors through", async () => {
    const palette = new FakePalette(sampleFleet());
    palette.failOn(
      "getCluster",
      new PaletteError(
        "unauthorized",
        401,
        undefined,
        "no",
        undefined,
        "GET /v1/spectroclusters/{uid}",
      ),
    );
    await expect(
      resolveCluster(
        "c0000000000000000000001a",
        [{}],
        await testContext({ palette }),
        replayWith("cluster"),
      ),
    ).rejects.toThrow(PaletteError);
  });

  it("prefers an exact name over a case-folded one, and uses the cluster's project", async () => {
    const palette = new FakePalette([
      { uid: "a1", name: "Web", projectUid: PROJECT, state: "Running", provider: "aws" },
      { uid: "b2", name: "web", projectUid: OTHER_PROJECT, state: "Running", provider: "aws" },
    ]);
    const result = await resolveCluster(
      "web",
      [{}],
      await testContext({ palette }),
      replayWith("cluster"),
    );
    if (result.kind !== "found") throw new Error("expected found");
    expect(result.cluster.uid).toBe("b2");
    expect(result.scope).toEqual({ projectUid: OTHER_PROJECT });
  });
});
