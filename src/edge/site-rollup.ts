import type { EdgeNews } from "./observe.ts";

/**
 * Pure: a cycle's edge news grouped for telling. Many hosts of one site changing together (a
 * store losing its uplink takes every host with it) are one message per site, as a cluster storm
 * is one message: hosts of a site with news of the same direction (dark: unhealthy, unpaired;
 * back: recovered, gone) in one cycle form a site group once there are `minHosts` of them;
 * the rest are told one by one. A site's message is edited as more hosts join or recover, so
 * the group key is stable: project and site, not the cycle.
 */

export const SITE_ROLLUP_MIN_HOSTS = 3;

export type EdgeDirection = "dark" | "back";

export interface SiteGroup {
  /** `edge-site:<project>:<site>`: the roll-up's stable key in a channel */
  key: string;
  projectUid: string;
  site: string;
  direction: EdgeDirection;
  news: EdgeNews[];
}

export interface GroupedNews {
  sites: SiteGroup[];
  single: EdgeNews[];
}

export function directionOf(news: EdgeNews): EdgeDirection {
  return news.kind === "unhealthy" || news.kind === "unpaired" ? "dark" : "back";
}

export function siteKey(projectUid: string, site: string): string {
  return `edge-site:${projectUid}:${site}`;
}

export function groupBySite(
  news: readonly EdgeNews[],
  minHosts = SITE_ROLLUP_MIN_HOSTS,
): GroupedNews {
  const bySite = new Map<string, SiteGroup>();
  const single: EdgeNews[] = [];
  for (const item of news) {
    const { site, projectUid } = item.host;
    if (!site) {
      single.push(item);
      continue;
    }
    const direction = directionOf(item);
    const key = `${siteKey(projectUid, site)}:${direction}`;
    const group = bySite.get(key) ?? {
      key: siteKey(projectUid, site),
      projectUid,
      site,
      direction,
      news: [],
    };
    group.news.push(item);
    bySite.set(key, group);
  }
  const sites: SiteGroup[] = [];
  for (const group of bySite.values()) {
    if (group.news.length >= minHosts) sites.push(group);
    else single.push(...group.news);
  }
  return { sites, single };
}
