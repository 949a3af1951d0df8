import type { EdgeHostRecord } from "../model/edge-host.ts";
import { hearsEdge, matchesFilter, type Subscription } from "../model/subscription.ts";
import type { EdgeNews } from "./observe.ts";
import type { GroupedNews, SiteGroup } from "./site-rollup.ts";

/**
 * Pure: which channel hears which edge news (issue 39). Channels subscribed with `edge` or `all`
 * (not paused) hear the hosts their `project:` and `tag:` let through, a host's tags and its
 * project read as a cluster's are. A site group reaches a channel with only the hosts that
 * channel may hear (a `tag:` narrower than the site splits it); a channel whose share of a site
 * is a single host hears it as that host's own notice. A channel with several matching
 * subscriptions hears each piece of news once.
 */

export interface ChannelEdgeNews {
  channel: string;
  sites: SiteGroup[];
  single: EdgeNews[];
}

const hostFilter = (host: EdgeHostRecord) => ({ project: host.projectUid, tags: host.tags });

export function routeEdgeNews(
  grouped: GroupedNews,
  subscriptions: readonly Subscription[],
): Map<string, ChannelEdgeNews> {
  const listening = subscriptions.filter(hearsEdge);
  const channels = [...new Set(listening.map((sub) => sub.channel))];
  const byChannel = new Map<string, ChannelEdgeNews>();
  for (const channel of channels) {
    const own = listening.filter((sub) => sub.channel === channel);
    const hears = (news: EdgeNews) => own.some((sub) => matchesFilter(sub, hostFilter(news.host)));
    const sites: SiteGroup[] = [];
    const single = grouped.single.filter(hears);
    for (const group of grouped.sites) {
      const heard = group.news.filter(hears);
      if (heard.length === 1) single.push(...heard);
      else if (heard.length > 1) sites.push({ ...group, news: heard });
    }
    if (sites.length > 0 || single.length > 0) byChannel.set(channel, { channel, sites, single });
  }
  return byChannel;
}
