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
