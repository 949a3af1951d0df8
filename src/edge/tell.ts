import type { EdgeHostRecord } from "../model/edge-host.ts";
import type { EdgeNoticePayload, OutboxDraft } from "../model/notification.ts";
import { hearsEdge, matchesFilter, type Subscription } from "../model/subscription.ts";
import { FLAP_WINDOW_MS } from "../notify/poll/flapping.ts";
import { CardStore } from "../store/cards.ts";
import { EdgeHostStore } from "../store/edge-hosts.ts";
import { OutboxStore } from "../store/outbox.ts";
import type { SqlExecutor } from "../store/sql.ts";
import {
  edgeHostNoticeBlocks,
  edgeHostNoticeText,
  edgeSiteRollupBlocks,
  edgeSiteRollupText,
} from "../views/edge-notice.ts";
import type { EdgeNews } from "./observe.ts";
import { hostFilter, routeEdgeNews } from "./route.ts";
import { type GroupedNews, siteKey } from "./site-rollup.ts";

/**
 * A cycle's edge news as outbox rows (issue 39), written in the transaction that records the
 * hosts, so a cycle is told and remembered or neither. Per channel:
 * - a site going dark together (site-rollup.ts) opens the site's roll-up, one message;
 * - while a site's roll-up is open in a channel (its message posted or on its way), any news of
 *   that site's hosts (one more going dark, some coming back, one deleted) edits the roll-up
 *   instead of posting on its own; the roll-up closes once none of its hosts is dark;
 * - anything else is the host's own notice, edited in place from dark to back.
 * A roll-up is drawn from the bot's record of the site as this cycle leaves it: its dark hosts,
 * and how many of the site's hosts the channel hears are not dark ("back").
 */

const hostKey = (uid: string) => `edge-host:${uid}`;

function hostDraft(channel: string, news: EdgeNews, now: number): OutboxDraft {
  const view = {
    kind: news.kind,
    host: news.host,
    at: now,
    ...(news.kind === "recovered" || news.kind === "gone" ? { was: news.was } : {}),
    ...(news.kind === "recovered" && news.darkMs !== undefined ? { darkMs: news.darkMs } : {}),
    ...(news.kind === "flapping" ? { changes: news.changes, windowMs: FLAP_WINDOW_MS } : {}),
    ...(news.kind === "settled" ? { dark: news.dark } : {}),
  };
  const key = hostKey(news.host.uid);
  const payload: EdgeNoticePayload = {
    text: edgeHostNoticeText(view),
    edge: {
      key,
      blocks: edgeHostNoticeBlocks(view),
      closes:
        news.kind === "recovered" ||
        news.kind === "gone" ||
        (news.kind === "settled" && !news.dark),
    },
  };
  return { channel, kind: "post", clusterUid: key, payload };
}

function rollupDraft(
  channel: string,
  key: string,
  site: string,
  heard: readonly EdgeHostRecord[],
  now: number,
): OutboxDraft {
  const dark = heard.filter((host) => host.told !== "");
  const view = { site, dark, back: heard.length - dark.length, at: now };
  const payload: EdgeNoticePayload = {
    text: edgeSiteRollupText(view),
    edge: { key, blocks: edgeSiteRollupBlocks(view), closes: dark.length === 0 },
  };
  return { channel, kind: "post", clusterUid: key, payload };
}

export async function edgeDrafts(
  tx: SqlExecutor,
  grouped: GroupedNews,
  subscriptions: readonly Subscription[],
  now: number,
): Promise<OutboxDraft[]> {
  const cards = new CardStore(tx);
  const outbox = new OutboxStore(tx);
  const hosts = new EdgeHostStore(tx);
  /** a roll-up is open in a channel while its message exists or is waiting to go out */
  const isOpen = async (channel: string, key: string) =>
    (await cards.get(channel, key)) !== undefined || (await outbox.hasPending(channel, key));
  const drafts: OutboxDraft[] = [];
  for (const { channel, sites, single } of routeEdgeNews(grouped, subscriptions).values()) {
    const own = subscriptions.filter((sub) => hearsEdge(sub) && sub.channel === channel);
    const rollups = new Map<string, { projectUid: string; site: string }>();
    const alone: EdgeNews[] = [...single];
    // a host told on its own before its site rolled up keeps its own card: news that ends the
    // host's darkness closes that card too, or its next outage would edit the stale message
    const closeOwnCard = async (news: EdgeNews) => {
      if (news.kind !== "recovered" && news.kind !== "gone") return;
      if (await isOpen(channel, hostKey(news.host.uid))) drafts.push(hostDraft(channel, news, now));
    };
    for (const group of sites) {
      // hosts coming back together whose darkness no roll-up told edit their own notices
      if (group.direction === "back" && !(await isOpen(channel, group.key))) {
        alone.push(...group.news);
      } else {
        rollups.set(group.key, group);
        for (const news of group.news) await closeOwnCard(news);
      }
    }
    for (const news of alone) {
      const { site, projectUid } = news.host;
      const key = site ? siteKey(projectUid, site) : undefined;
      if (site && key && (rollups.has(key) || (await isOpen(channel, key)))) {
        rollups.set(key, { projectUid, site });
        await closeOwnCard(news);
      } else drafts.push(hostDraft(channel, news, now));
    }
    for (const [key, { projectUid, site }] of rollups) {
      const heard = (await hosts.ofSite(projectUid, site)).filter((host) =>
        own.some((sub) => matchesFilter(sub, hostFilter(host))),
      );
      drafts.push(rollupDraft(channel, key, site, heard, now));
    }
  }
  return drafts;
}
