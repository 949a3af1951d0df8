import type { ClusterSnap } from "./cluster.ts";

/** A channel's standing request for notifications. */

export type SubscriptionKind = "clusters" | "alerts" | "all";

export interface Subscription {
  id: number;
  channel: string;
  kind: SubscriptionKind;
  project?: string;
  tag?: string;
  pausedReason?: string;
  createdBy: string;
  createdAt: string;
}

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
