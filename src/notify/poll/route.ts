import type { ClusterSnap } from "../../model/cluster.ts";
import type { AlertEvent, CardPayload, ClusterChange } from "../../model/notification.ts";
import type { Subscription } from "../../model/subscription.ts";
import { matchesFilter } from "../../model/subscription.ts";
import { describeChange } from "./diff.ts";

export interface ChannelNews {
  channel: string;
  cluster: ClusterSnap;
  change?: ClusterChange;
  alerts: AlertEvent[];
}

export interface RouteResult {
  /** per channel, in the order the news was produced; one entry per (channel, cluster) */
  byChannel: Map<string, ChannelNews[]>;
}

/**
 * Pure: which channel hears about which change. A channel whose several subscriptions match
 * the same cluster hears once; cluster changes and alerts of one cluster share one entry (one
 * card per channel and cluster). Paused subscriptions hear nothing.
 */
export function routeNews(input: {
  subscriptions: readonly Subscription[];
  changes: readonly ClusterChange[];
  alerts: readonly AlertEvent[];
}): RouteResult {
  const byChannel = new Map<string, ChannelNews[]>();
  const index = new Map<string, ChannelNews>();
  const active = input.subscriptions.filter((sub) => !sub.pausedReason);

  const entry = (channel: string, cluster: ClusterSnap): ChannelNews => {
    const key = `${channel}\u0000${cluster.uid}`;
    let news = index.get(key);
    if (!news) {
      news = { channel, cluster, alerts: [] };
      index.set(key, news);
      const list = byChannel.get(channel) ?? [];
      list.push(news);
      byChannel.set(channel, list);
    }
    return news;
  };

  for (const change of input.changes) {
    for (const sub of active) {
      if (sub.kind === "alerts" || !matchesFilter(sub, change.cluster)) continue;
      const news = entry(sub.channel, change.cluster);
      news.change = change;
      news.cluster = change.cluster;
    }
  }
  for (const alert of input.alerts) {
    for (const sub of active) {
      if (sub.kind === "clusters" || !matchesFilter(sub, alert.cluster)) continue;
      const news = entry(sub.channel, alert.cluster);
      if (!news.alerts.includes(alert)) news.alerts.push(alert);
    }
  }
  return { byChannel };
}

function alertLine(alert: AlertEvent): string {
  return alert.status === "raised"
    ? `${alert.alert} alert raised: ${alert.reason}`
    : `${alert.alert} alert resolved: ${alert.reason}`;
}

/** One channel's news about one cluster → the outbox card payload. */
export function cardPayload(news: ChannelNews, at: string): CardPayload {
  const lines = [
    ...(news.change ? describeChange(news.change) : []),
    ...news.alerts.map(alertLine),
  ];
  return {
    cluster: news.cluster,
    previous: news.change?.previous,
    kinds: news.change?.kinds ?? [],
    lines,
    worse: (news.change?.worse ?? false) || news.alerts.some((a) => a.status === "raised"),
    alerts: news.alerts,
    at,
  };
}
