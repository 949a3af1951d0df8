import { describe, expect, it } from "vitest";
import { changeMenuOptions } from "../../../src/views/change-menu.ts";

const labels = (options: Array<{ label: string }>) => options.map((option) => option.label);

describe("the Actions… menu", () => {
  it("offers what fits the cluster's state and type", () => {
    const running = { uid: "u1", projectUid: "p1", state: "Running", provider: "aws" };
    expect(labels(changeMenuOptions(running))).toEqual([
      "Scale a pool…",
      "Cordon a node…",
      "Upgrade…",
      "Back up now…",
      "Delete…",
    ]);
    expect(changeMenuOptions(running)[0]!.command).toBe("scale u1 project:p1");
    expect(labels(changeMenuOptions({ ...running, provider: "edge-native" }))).not.toContain(
      "Scale a pool…",
    );
    expect(labels(changeMenuOptions({ ...running, state: "Provisioning" }))).toEqual(["Delete…"]);
    expect(changeMenuOptions({ ...running, state: "Deleting" })).toEqual([]);
  });

  it("pauses a running virtual cluster and resumes a paused one", () => {
    const virtual = { uid: "v1", state: "Running", provider: "virtual" };
    expect(labels(changeMenuOptions(virtual))).toEqual([
      "Pause…",
      "Back up now…",
      "Fetch logs…",
      "Delete…",
    ]);
    // a paused virtual cluster is still Running to Palette: backup and logs stay on offer
    expect(labels(changeMenuOptions({ ...virtual, virtualState: "Paused" }))).toEqual([
      "Resume…",
      "Back up now…",
      "Fetch logs…",
      "Delete…",
    ]);
  });
});
