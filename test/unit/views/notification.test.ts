import { describe, expect, it } from "vitest";
import type { CardPayload } from "../../../src/model/notification.ts";
import { DIGEST_LINES, digestOf } from "../../../src/notify/digest/digest.ts";
import { checkSlackLimits } from "../../../src/views/limits.ts";
import {
  notificationCard,
  notificationDigest,
  notificationSummary,
  notificationThreadLine,
} from "../../../src/views/notification.ts";

const evil = "<!channel> & <@U123>";
const card: CardPayload = {
  cluster: {
    uid: "u1",
    name: evil,
    project: "p1",
    state: "Running",
    health: "UnHealthy",
    tags: ["x".repeat(300)],
  },
  previous: { state: "Running", health: "Healthy" },
  kinds: ["health-lost"],
  lines: [`Health lost because ${evil}`, "y".repeat(5000)],
  worse: true,
  alerts: [
    {
      status: "raised",
      alert: "ClusterHealth",
      cluster: {
        uid: "u1",
        name: evil,
        project: "p1",
        state: "Running",
        health: "UnHealthy",
        tags: [],
      },
      reason: evil.repeat(400),
    },
  ],
  at: "2026-01-01T00:00:00.000Z",
};

const json = (value: unknown) => JSON.stringify(value);

describe("notification views", () => {
  it("escape API text and stay within Slack limits", () => {
    for (const view of [
      notificationCard(card),
      notificationThreadLine(card),
      notificationDigest({
        project: "p",
        total: 500,
        counts: { state: 500 },
        lines: Array(15).fill(evil),
        at: "t",
      }),
      notificationSummary({
        projects: ["p1"],
        total: 900,
        byState: { Running: 900 },
        unhealthy: Array(900).fill({ name: evil, health: "UnHealthy" }),
        at: "t",
      }),
    ]) {
      expect(checkSlackLimits(view.blocks)).toEqual([]);
      // plain_text headers are never parsed for mentions; every mrkdwn text must be escaped
      const mrkdwn = { text: view.text, blocks: view.blocks.filter((b) => b.type !== "header") };
      expect(json(mrkdwn)).not.toContain("<!channel>");
      expect(json(mrkdwn)).not.toContain("<@U123>");
      expect(view.text.length).toBeLessThanOrEqual(3000);
    }
  });

  it("a digest names every cluster of a catch-up, up to DIGEST_LINES, within Slack's limits", () => {
    const cards: CardPayload[] = Array.from({ length: DIGEST_LINES }, (_, i) => ({
      ...card,
      cluster: { ...card.cluster, uid: `u${i}`, name: `cluster-with-a-rather-long-name-${i}` },
      kinds: ["health-lost"],
      lines: ["Health lost: Healthy → UnHealthy"],
    }));
    const view = notificationDigest(digestOf(cards, "t"));
    expect(checkSlackLimits(view.blocks)).toEqual([]);
    const text = json(view.blocks);
    for (let i = 0; i < DIGEST_LINES; i++)
      expect(text).toContain(`cluster-with-a-rather-long-name-${i}:`);
    expect(text).not.toContain("more clusters");
  });

  it("links a card to its cluster in the Palette console when the console URL is known", () => {
    const linked = notificationCard(card, { consoleUrl: "https://console.example.com/" });
    expect(checkSlackLimits(linked.blocks)).toEqual([]);
    const actions = linked.blocks.find((block) => block.type === "actions");
    expect(json(actions)).toContain("https://console.example.com/projects/p1/clusters/u1/overview");
    // without the console URL the card keeps its on-call buttons, not the link
    expect(json(notificationCard(card).blocks)).not.toContain("Open in Palette");
  });
});

describe("the card's on-call status and buttons", () => {
  const ids = (blocks: unknown[]) =>
    blocks
      .filter((block) => (block as { type: string }).type === "actions")
      .flatMap((block) => (block as { elements: Array<{ action_id?: string }> }).elements)
      .map((element) => element.action_id);

  it("offers Acknowledge, Snooze, Mute, Nodes, Workloads, Why? and the Actions… menu while nobody acted", () => {
    const view = notificationCard(card);
    expect(checkSlackLimits(view.blocks)).toEqual([]);
    expect(ids(view.blocks)).toEqual([
      "notify_card:ack",
      "notify_card:snooze",
      "notify_card:mute",
      "palette_run:card_nodes",
      "palette_run:card_workloads",
      "palette_run:card_why",
      "palette_run:actions_notify",
    ]);
    expect(json(view.blocks)).toContain("nodes u1 project:p1");
    expect(json(view.blocks)).toContain('"value":"why u1 project:p1"');
    // the menu's options are the change commands for this cluster, each confirmed when picked
    expect(json(view.blocks)).toContain("delete u1 project:p1");
  });

  it("says who acknowledged, snoozed and muted, with times each reader sees in their zone", () => {
    const at = Date.UTC(2026, 10, 23, 14, 2);
    const hold = {
      channel: "C1",
      clusterUid: "u1",
      clusterName: "web",
      projectUid: "p1",
      userId: "U0BOB",
      startedAt: at,
      untilMs: at + 3600_000,
    };
    const view = notificationCard(
      card,
      {},
      {
        ack: { userId: "U0ALICE", at },
        snooze: { ...hold, kind: "snooze" },
        mute: { ...hold, kind: "mute", reason: "<!channel> maintenance" },
      },
    );
    expect(checkSlackLimits(view.blocks)).toEqual([]);
    const text = json(view.blocks);
    expect(text).toContain(`Acknowledged by <@U0ALICE>, <!date^${at / 1000}^{time}|14:02 UTC>`);
    expect(text).toContain("Snoozed by <@U0BOB> until");
    expect(text).toContain("&lt;!channel&gt; maintenance");
    expect(ids(view.blocks)).toEqual([
      "notify_card:unsnooze",
      "notify_card:unmute",
      "palette_run:card_nodes",
      "palette_run:card_workloads",
      "palette_run:card_why",
      "palette_run:actions_notify",
    ]);
  });
});
