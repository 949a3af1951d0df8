import { describe, expect, it } from "vitest";
import type { ChannelDigestPayload } from "../../../src/model/channel-digest.ts";
import type { ClusterSnap } from "../../../src/model/cluster.ts";
import { buildChannelDigest } from "../../../src/notify/digest/channel-digest.ts";
import { channelDigestMessage } from "../../../src/views/channel-digest.ts";
import { checkSlackLimits, LIMITS } from "../../../src/views/limits.ts";
import { blocksText } from "../../support/reply-text.ts";

const EVIL = "<!channel> & <@U123> <https://evil.example|click>";
const TO = "2026-03-10T08:00:00.000Z";
const hoursBefore = (h: number) => new Date(Date.parse(TO) - h * 3600_000).toISOString();

function payload(over: Partial<ChannelDigestPayload> = {}): ChannelDigestPayload {
  const event = { name: EVIL, project: EVIL, at: hoursBefore(3), detail: EVIL };
  return {
    channel: "C1",
    cadence: "daily",
    preview: false,
    timeZone: "Europe/Berlin",
    from: hoursBefore(24),
    to: TO,
    subscriptions: 1,
    total: 3,
    projects: {
      total: 1,
      items: [
        {
          project: EVIL,
          total: 3,
          byState: [
            ["Running", 2],
            [EVIL, 1],
          ],
          healthy: 1,
          unhealthy: 1,
          unknown: 1,
        },
      ],
    },
    longUnhealthy: {
      total: 1,
      items: [{ name: EVIL, project: "p1", health: EVIL, since: hoursBefore(30), exact: true }],
    },
    launched: { total: 1, items: [event] },
    deleted: { total: 1, items: [event] },
    alertsRaised: { total: 1, items: [event] },
    alertsResolved: { total: 1, items: [event] },
    flapping: {
      total: 1,
      items: [{ name: EVIL, project: "p1", transitions: 7, flappingNow: true }],
    },
    mutes: { total: 1, items: [{ cluster: EVIL, until: TO, by: EVIL, reason: EVIL }] },
    ...over,
  };
}

describe("channelDigestMessage", () => {
  it("escapes every Palette- and user-supplied string: a cluster named <!channel> pings nobody", () => {
    const message = channelDigestMessage(payload());
    expect(checkSlackLimits(message.blocks)).toEqual([]);
    const text = blocksText(message.blocks);
    expect(text).not.toContain("<!channel>");
    expect(text).not.toContain("<@U123>");
    expect(text).not.toContain("<https://evil");
    expect(text).toContain("&lt;!channel&gt;");
    expect(message.text).not.toContain("<");
  });

  it("shows each part: projects, long unhealthy with since when, launched, deleted, alerts, flapping, mutes", () => {
    const text = blocksText(channelDigestMessage(payload()).blocks);
    expect(text).toContain("Daily digest");
    for (const title of [
      "By project",
      "Unhealthy for more than 24 h (1)",
      "Launched (1)",
      "Deleted (1)",
      "Alerts raised (1)",
      "Alerts resolved (1)",
      "Flapping the most (1)",
      "Muted (1)",
    ]) {
      expect(text).toContain(title);
    }
    // times in the schedule's zone: 30 h before 09:00 CET is 03:00 CET the day before
    expect(text).toContain("since 2026-03-09 03:00 (1d 6h)");
    expect(text).toContain("2026-03-09 09:00 → 2026-03-10 09:00 (Europe/Berlin)");
  });

  it("says plainly what did not happen, and leaves mutes out when nobody passed them", () => {
    const quiet = payload({
      longUnhealthy: { total: 0, items: [] },
      launched: { total: 0, items: [] },
      deleted: { total: 0, items: [] },
      alertsRaised: { total: 0, items: [] },
      alertsResolved: { total: 0, items: [] },
      flapping: { total: 0, items: [] },
      mutes: undefined,
    });
    const message = channelDigestMessage(quiet);
    expect(checkSlackLimits(message.blocks)).toEqual([]);
    const text = blocksText(message.blocks);
    expect(text).toContain("nothing launched");
    expect(text).toContain("no alerts raised");
    expect(text).not.toContain("Muted");
  });

  it("a preview says it is one; a weekly digest says weekly", () => {
    expect(blocksText(channelDigestMessage(payload({ preview: true })).blocks)).toContain(
      "Digest preview",
    );
    expect(blocksText(channelDigestMessage(payload({ cadence: "weekly" })).blocks)).toContain(
      "Weekly digest",
    );
  });

  it("stays within Slack's limits for 50,000 clusters and hundreds of events, saying how many more", () => {
    const clusters: ClusterSnap[] = [];
    const since = new Map<string, { since: string; exact: boolean }>();
    for (let i = 0; i < 50_000; i++) {
      const uid = `u${i}`;
      const unhealthy = i % 7 === 0;
      clusters.push({
        uid,
        name: `${EVIL}-${"x".repeat(200)}-${i}`,
        project: `${EVIL}${i % 500}`,
        state: ["Running", "Provisioning", EVIL][i % 3]!,
        health: unhealthy ? "UnHealthy" : "Healthy",
        tags: [],
      });
      if (unhealthy) since.set(uid, { since: hoursBefore(48), exact: i % 2 === 0 });
    }
    const kinds = ["new", "deleted", "alert-raised", "alert-resolved", "health-lost"] as const;
    const events = Array.from({ length: 900 }, (_, i) => ({
      at: hoursBefore(1),
      clusterUid: `u${i % 120}`,
      name: `${EVIL}-${"y".repeat(300)}-${i}`,
      project: "p",
      tags: [],
      kind: kinds[i % kinds.length]!,
      detail: EVIL.repeat(6),
    }));
    const digest = buildChannelDigest({
      channel: "C1",
      cadence: "weekly",
      preview: false,
      timeZone: "America/New_York",
      subscriptions: [{ id: 1, channel: "C1", kind: "all", createdBy: "U1", createdAt: TO }],
      clusters,
      events,
      unhealthySince: since,
      flappingNow: new Set(["u1"]),
      from: hoursBefore(24 * 7),
      to: TO,
      mutes: Array.from({ length: 300 }, (_, i) => ({
        cluster: `${EVIL}${i}`,
        until: TO,
        by: EVIL,
        reason: EVIL.repeat(100),
      })),
    });
    const message = channelDigestMessage(digest);
    expect(checkSlackLimits(message.blocks)).toEqual([]);
    expect(message.blocks.length).toBeLessThanOrEqual(LIMITS.blocksPerMessage);
    expect(message.text.length).toBeLessThanOrEqual(LIMITS.fallbackText);
    const text = blocksText(message.blocks);
    expect(text).toContain("50000 clusters");
    expect(text).toMatch(/…and \d+ more projects/);
    expect(text).toMatch(/…and \d+ more clusters/);
    expect(text).not.toContain("<!channel>");
  });
});
