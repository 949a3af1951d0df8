import { describeChange } from "./diff.ts";
import {
  type AlertEvent,
  type CardPayload,
  type ClusterChange,
  type ClusterSnap,
  isFailedState,
  type LaunchWatch,
  type Subscription,
} from "./model.ts";

/** Does a subscription's project/tag filter let this cluster through? */
export function matchesFilter(subscription: Subscription, cluster: ClusterSnap): boolean {
  if (subscription.project && subscription.project !== cluster.project) return false;
  if (subscription.tag) {
    const want = subscription.tag.toLowerCase();
    const hit = cluster.tags.some((tag) => {
      const lower = tag.toLowerCase();
      return lower === want || (!want.includes(":") && lower.split(":")[0] === want);
    });
    if (!hit) return false;
  }
  return true;
}

export interface ChannelNews {
  channel: string;
  cluster: ClusterSnap;
  change?: ClusterChange;
  alerts: AlertEvent[];
  mention?: string;
}

export interface RouteResult {
  /** per channel, in the order the news was produced; one entry per (channel, cluster) */
  byChannel: Map<string, ChannelNews[]>;
  /** launch watches that reached Running or failed and are now over */
  finishedLaunches: string[];
}

/**
 * Pure: which channel hears about which change. A channel whose several subscriptions match
 * the same cluster hears once; cluster changes and alerts of one cluster share one entry (one
 * card per channel and cluster). Paused subscriptions hear nothing. A watched launch reaches
 * its channel whatever that channel subscribed to.
 */
export function routeNews(input: {
  subscriptions: readonly Subscription[];
  changes: readonly ClusterChange[];
  alerts: readonly AlertEvent[];
  launches?: readonly LaunchWatch[];
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

  const finishedLaunches: string[] = [];
  const changeOf = new Map(input.changes.map((change) => [change.cluster.uid, change]));
  for (const watch of input.launches ?? []) {
    const change = changeOf.get(watch.clusterUid);
    if (!change) continue;
    const news = entry(watch.channel, change.cluster);
    news.change = change;
    news.cluster = change.cluster;
    const state = change.cluster.state;
    if (state === "Running" || isFailedState(state) || state === "Deleted") {
      news.mention = watch.requester;
      finishedLaunches.push(watch.clusterUid);
    }
  }
  return { byChannel, finishedLaunches };
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
    mention: news.mention,
    at,
  };
}
