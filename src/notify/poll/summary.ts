import { type ClusterSnap, isKnownUnhealthy } from "../../model/cluster.ts";
import type { OutboxDraft, SummaryPayload } from "../../model/notification.ts";
import type { Subscription } from "../../model/subscription.ts";
import { matchesFilter } from "../../model/subscription.ts";

/** A scope seen for the first time this cycle, and a way to walk its clusters. */
export interface BaselineScope {
  project: string;
  forEach(visit: (cluster: ClusterSnap) => void): Promise<void>;
}

interface Tally {
  subs: Subscription[];
  relevant: BaselineScope[];
  total: number;
  byState: Record<string, number>;
  unhealthy: Array<{ name: string; health: string }>;
}

/**
 * One summary per subscribed channel for the projects seen for the first time this cycle. The
 * clusters are counted as they are walked (once for every channel), never gathered in one list.
 */
export async function summaries(
  baselines: readonly BaselineScope[],
  subs: readonly Subscription[],
  at: string,
): Promise<OutboxDraft[]> {
  if (baselines.length === 0) return [];
  const byChannel = new Map<string, Subscription[]>();
  for (const sub of subs) {
    if (sub.pausedReason) continue;
    byChannel.set(sub.channel, [...(byChannel.get(sub.channel) ?? []), sub]);
  }
  const tallies = new Map<string, Tally>();
  for (const [channel, channelSubs] of byChannel) {
    // a tenant-scope baseline ("") holds every project's clusters: matchesFilter picks them
    const relevant = baselines.filter((b) =>
      channelSubs.some((s) => !s.project || !b.project || s.project === b.project),
    );
    if (relevant.length === 0) continue;
    tallies.set(channel, { subs: channelSubs, relevant, total: 0, byState: {}, unhealthy: [] });
  }
  for (const baseline of baselines) {
    const counting = [...tallies.values()].filter((t) => t.relevant.includes(baseline));
    if (counting.length === 0) continue;
    await baseline.forEach((c) => {
      for (const tally of counting) {
        if (!tally.subs.some((s) => matchesFilter(s, c))) continue;
        tally.total += 1;
        tally.byState[c.state] = (tally.byState[c.state] ?? 0) + 1;
        if (isKnownUnhealthy(c.health)) tally.unhealthy.push({ name: c.name, health: c.health });
      }
    });
  }
  return [...tallies].map(([channel, tally]) => {
    const payload: SummaryPayload = {
      projects: tally.relevant.map((b) => b.project),
      total: tally.total,
      byState: tally.byState,
      unhealthy: tally.unhealthy,
      at,
    };
    return { channel, kind: "summary", payload };
  });
}
