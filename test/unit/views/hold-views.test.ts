import { describe, expect, it } from "vitest";
import type { CardPayload } from "../../../src/model/notification.ts";
import { buildAppHome, type HomeHold } from "../../../src/views/app-home.ts";
import { checkSlackLimits } from "../../../src/views/limits.ts";
import { notificationCard, notificationThreadLine } from "../../../src/views/notification.ts";

const NOW = Date.UTC(2026, 10, 23, 12);

function summary(held: CardPayload["held"]): CardPayload {
  return {
    cluster: {
      uid: "u1",
      name: "web",
      project: "p1",
      state: "Running",
      health: "Healthy",
      tags: [],
    },
    previous: { state: "Running", health: "Healthy" },
    kinds: ["state"],
    lines: [
      "Mute ended: 2 changes while muted (Running → Upgrading, Upgrading → Running); now Running, Healthy",
    ],
    worse: false,
    alerts: [],
    at: new Date(NOW).toISOString(),
    held,
  };
}

describe("the line that ends a snooze or a mute", () => {
  it("names who set the mute and why, escaped, with what changed and where it stands now", () => {
    const line = notificationThreadLine(
      summary({
        ended: [{ kind: "mute", userId: "U77", reason: "upgrade <!channel> & co" }],
        changes: ["Running → Upgrading", "Upgrading → Running"],
        more: 0,
        now: { state: "Running", health: "Healthy" },
      }),
    );
    expect(line.text).toBe(
      ":mute: Mute on *web* ended (set by <@U77>: upgrade &lt;!channel&gt; &amp; co): 2 changes while muted (Running → Upgrading, Upgrading → Running); now Running, Healthy",
    );
    expect(checkSlackLimits(line.blocks)).toEqual([]);
  });

  it("says a snooze ended early and by whom, and counts what the list leaves out", () => {
    const line = notificationThreadLine(
      summary({
        ended: [{ kind: "snooze", userId: "U77" }],
        endedBy: "U88",
        changes: ["health lost"],
        more: 3,
        now: { state: "Running", health: "UnHealthy" },
      }),
    );
    expect(line.text).toBe(
      ":sleeping: Snooze on *web* ended early by <@U88>: 4 changes while snoozed (health lost, …and 3 more); now Running, UnHealthy",
    );
  });

  it("puts the plain summary on the card as its last change", () => {
    const card = notificationCard(
      summary({
        ended: [{ kind: "snooze", userId: "U77" }],
        changes: ["health lost"],
        more: 0,
        now: { state: "Running", health: "UnHealthy" },
      }),
    );
    expect(JSON.stringify(card.blocks)).toContain("Last change: Mute ended: 2 changes");
    expect(checkSlackLimits(card.blocks)).toEqual([]);
  });
});

describe("the App Home's mutes and snoozes", () => {
  const base = {
    userId: "U1",
    fleet: { at: NOW, clusters: [] },
    permissions: {
      launch: { allowed: true, hint: "" },
      kubeconfig: { allowed: true, hint: "" },
      subscribe: { allowed: true, hint: "" },
      ack: { allowed: true, hint: "" },
    },
    subscriptions: [],
    consoleUrl: "https://console.example.com/",
    now: NOW,
  };
  const holds: HomeHold[] = [
    {
      channel: "C0123ABCD",
      kind: "mute",
      clusterName: "<!here> web",
      userId: "U77",
      reason: "db <move>",
      untilMs: NOW + 86_400_000,
    },
    {
      channel: "C0123ABCD",
      kind: "snooze",
      clusterName: "api",
      userId: "U88",
      untilMs: NOW + 3_600_000,
    },
  ];

  it("lists them per channel with who, why and until, escaped", () => {
    const view = buildAppHome({ ...base, holds });
    const text = JSON.stringify(view.blocks);
    expect(text).toContain("Mutes and snoozes in your channels");
    expect(text).toContain("&lt;!here&gt; web");
    expect(text).toContain("db &lt;move&gt;");
    expect(text).toContain("<@U77>");
    expect(text).toContain(":sleeping:");
    const masked = JSON.parse(text.replace(/<#[CG][A-Z0-9]+>/g, "#chan"));
    expect(checkSlackLimits(masked)).toEqual([]);
  });

  it("says none when there are none, and nothing at all without the source", () => {
    expect(JSON.stringify(buildAppHome({ ...base, holds: [] }).blocks)).toContain(
      "No cluster is muted or snoozed",
    );
    expect(JSON.stringify(buildAppHome(base).blocks)).not.toContain("Mutes and snoozes");
  });
});
