import { describe, expect, it } from "vitest";
import { renderBlocks } from "../../../src/console/render.ts";
import type { CardPayload } from "../../../src/model/notification.ts";
import { notificationCard } from "../../../src/views/notification.ts";

const payload: CardPayload = {
  cluster: { uid: "u1", name: "web", project: "p1", state: "Running", health: "Healthy", tags: [] },
  kinds: ["state"],
  lines: ["State Upgrading → Running"],
  worse: false,
  alerts: [],
  at: "2026-11-23T14:02:00.000Z",
};

describe("a notification card in the console", () => {
  it("shows the Snooze list by its placeholder, and no made-up command for the card's own buttons", () => {
    const text = renderBlocks(notificationCard(payload).blocks);
    expect(text).toContain("[Acknowledge] [Snooze ▾] [Mute cluster…] [Nodes] [Workloads]");
    expect(text).not.toContain('/palette {"c"');
    expect(text).toContain("Nodes: /palette nodes u1 project:p1");
  });
});
