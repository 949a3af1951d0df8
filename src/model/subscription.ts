import type { ClusterSnap } from "./cluster.ts";

/** A channel's standing request for notifications. */

/**
 * `risks`: the radar's notices (issue 28), apart from the poll's cards (`all` is clusters and
 * alerts); `edge`: the edge fleet's hosts and sites (issue 39), which `all` includes too
 */
export type SubscriptionKind = "clusters" | "alerts" | "all" | "risks" | "edge";

/** Does the poll's pipeline (cluster cards, alerts, digests) route to this subscription? */
export function hearsPoll(subscription: Pick<Subscription, "kind">): boolean {
  return subscription.kind !== "risks" && subscription.kind !== "edge";
}

/** Does this subscription hear the edge fleet's notices (issue 39)? `edge`, and `all`. */
export function hearsEdge(subscription: Pick<Subscription, "kind" | "pausedReason">): boolean {
  return (
    !subscription.pausedReason && (subscription.kind === "edge" || subscription.kind === "all")
  );
}

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

/** Does a subscription's project/tag filter let this cluster (or edge host) through? */
export function matchesFilter(
  subscription: Subscription,
  cluster: Pick<ClusterSnap, "project" | "tags">,
): boolean {
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
