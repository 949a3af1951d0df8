import { describe, expect, it } from "vitest";
import { changeMenu, changeMenuOptions } from "../../../src/views/change-menu.ts";
import { checkMessage } from "../../support/slack-limits.ts";

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

  it("posts in Slack whatever the cluster's state: one choice is a button, not a one-item menu", () => {
    // Slack refuses an overflow menu of fewer than two options (invalid_blocks), which a new,
    // still provisioning cluster's notification card had: only "Delete…"
    for (const state of ["Provisioning", "Running", "Paused", "Deleting"]) {
      for (const provider of ["aws", "virtual", "edge-native", ""]) {
        const menu = changeMenu({ uid: "u1", projectUid: "p1", state, provider }, "card");
        if (!menu) continue;
        expect(
          checkMessage({ text: "card", blocks: [{ type: "actions", elements: [menu] }] }),
          `${state} ${provider}`,
        ).toBeUndefined();
      }
    }
    const single = changeMenu({ uid: "u1", state: "Provisioning", provider: "aws" }, "card");
    expect(single).toMatchObject({ type: "button", text: { text: "Delete…" }, value: "delete u1" });
  });
});
