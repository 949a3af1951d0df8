import { describe, expect, it } from "vitest";
import { nameTaken } from "../../../src/launch/submit.ts";
import { FakePalette, PROJECT } from "../../support/fake-palette.ts";

describe("nameTaken", () => {
  const fleet = Array.from({ length: 80 }, (_, index) => ({
    uid: `u${index}`,
    name: `c-${index}`,
    projectUid: PROJECT,
    state: index === 5 ? "Deleted" : "Running",
    provider: "aws",
  }));

  it("asks Palette for the name with one search", async () => {
    const palette = new FakePalette(fleet);
    expect(await nameTaken({ palette }, "c-70", { projectUid: PROJECT })).toBe(true);
    expect(palette.callsTo("searchClusters").map((call) => call.args[0])).toEqual([
      { projectUid: PROJECT, name: "c-70", continue: undefined, limit: 50 },
    ]);
  });

  it("is free when no live cluster has the name", async () => {
    const palette = new FakePalette(fleet);
    expect(await nameTaken({ palette }, "c-5", { projectUid: PROJECT })).toBe(false);
    expect(await nameTaken({ palette }, "new-one", { projectUid: PROJECT })).toBe(false);
  });
});
