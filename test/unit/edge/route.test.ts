import { describe, expect, it } from "vitest";
import type { EdgeNews } from "../../../src/edge/observe.ts";
import { routeEdgeNews } from "../../../src/edge/route.ts";
import { groupBySite } from "../../../src/edge/site-rollup.ts";
import type { EdgeHostRecord } from "../../../src/model/edge-host.ts";
import { hearsPoll, type Subscription } from "../../../src/model/subscription.ts";

/** Which channel hears which edge news: `edge` and `all`, project: and tag:, once per channel. */

const T0 = Date.UTC(2026, 0, 10, 2, 14);

function dark(uid: string, overrides: Partial<EdgeHostRecord> = {}): EdgeNews {
  const host: EdgeHostRecord = {
    uid,
    scope: "p1",
    projectUid: "p1",
    name: uid,
    site: "store-0142",
    tags: ["site:store-0142", "region:us-east"],
    state: "in-use",
    health: "unhealthy",
    firstSeenAt: T0,
    seenAt: T0,
    unhealthySince: T0,
    told: "unhealthy",
    ...overrides,
  };
  return { kind: "unhealthy", host, since: T0 };
}

let nextId = 1;
function sub(
  channel: string,
  kind: Subscription["kind"],
  filter: { project?: string; tag?: string } = {},
): Subscription {
  return {
    id: nextId++,
    channel,
    kind,
    createdBy: "U1",
    createdAt: "2026-01-01T00:00:00Z",
    ...filter,
  };
}

describe("routing edge news", () => {
  const news = [
    ...Array.from({ length: 40 }, (_, i) =>
      dark(`h${i}`, i === 0 ? { tags: ["site:store-0142", "vip"] } : {}),
    ),
    dark("other-project", { projectUid: "p2", site: undefined, tags: [] }),
  ];
  const grouped = groupBySite(news);

  it("edge and all hear it; clusters, alerts, risks and paused subscriptions do not", () => {
    const routed = routeEdgeNews(grouped, [
      sub("C-EDGE", "edge"),
      sub("C-ALL", "all"),
      sub("C-CLUSTERS", "clusters"),
      sub("C-ALERTS", "alerts"),
      sub("C-RISKS", "risks"),
      { ...sub("C-PAUSED", "edge"), pausedReason: "channel_not_found" },
    ]);
    expect([...routed.keys()].sort()).toEqual(["C-ALL", "C-EDGE"]);
    const edge = routed.get("C-EDGE")!;
    expect(edge.sites).toHaveLength(1);
    expect(edge.sites[0]!.news).toHaveLength(40);
    expect(edge.single.map((item) => item.host.uid)).toEqual(["other-project"]);
  });

  it("project: and tag: narrow it; a site split down to one host is that host's own notice", () => {
    const routed = routeEdgeNews(grouped, [
      sub("C-P2", "edge", { project: "p2" }),
      sub("C-VIP", "edge", { tag: "vip" }),
      sub("C-SITE", "edge", { tag: "site:store-0142" }),
    ]);
    expect(routed.get("C-P2")).toMatchObject({
      sites: [],
      single: [{ host: { uid: "other-project" } }],
    });
    expect(routed.get("C-VIP")).toMatchObject({ sites: [], single: [{ host: { uid: "h0" } }] });
    expect(routed.get("C-SITE")!.sites[0]!.news).toHaveLength(40);
  });

  it("an edge subscription gets no cluster cards, alerts or digests from the cluster poll", () => {
    expect(hearsPoll(sub("C-EDGE", "edge"))).toBe(false);
    expect(hearsPoll(sub("C-ALL", "all"))).toBe(true);
  });

  it("a channel with two matching subscriptions hears each host once", () => {
    const routed = routeEdgeNews(grouped, [
      sub("C1", "edge"),
      sub("C1", "all"),
      sub("C1", "edge", { project: "p1" }),
    ]);
    const channel = routed.get("C1")!;
    expect(channel.sites).toHaveLength(1);
    expect(channel.sites[0]!.news).toHaveLength(40);
    expect(channel.single).toHaveLength(1);
  });
});
