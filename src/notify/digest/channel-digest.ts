import type {
  Capped,
  ChannelDigestPayload,
  DigestCadence,
  DigestClusterEvent,
  DigestFlapper,
  DigestLongUnhealthy,
  DigestMute,
  DigestProjectCounts,
  NotifyEvent,
  UnhealthySince,
} from "../../model/channel-digest.ts";
import {
  type ClusterSnap,
  isHealthUnknown,
  isHealthy,
  isKnownUnhealthy,
} from "../../model/cluster.ts";
import { matchesFilter, type Subscription } from "../../model/subscription.ts";
import { FLAP_MAX_CHANGES } from "../poll/flapping.ts";

/**
 * The channel digest's content, pure: the channel's subscriptions, the clusters as last polled,
 * the events since the last digest and since when clusters have been unhealthy → one plain
 * payload, every list capped, so it fits in a Slack message whatever the fleet.
 */

export interface ChannelDigestInput {
  channel: string;
  cadence?: DigestCadence;
  preview: boolean;
  timeZone: string;
  /** the channel's subscriptions; paused ones are left out (the channel is closed to the bot) */
  subscriptions: readonly Subscription[];
  /** the clusters as last polled; or, instead, `tally` already fed with them */
  clusters?: Iterable<ClusterSnap>;
  tally?: ClusterTally;
  /** events after `from`, up to `to` */
  events: readonly NotifyEvent[];
  unhealthySince: ReadonlyMap<string, UnhealthySince>;
  /** clusters the pipeline holds as flapping right now */
  flappingNow: ReadonlySet<string>;
  from: string;
  to: string;
  /** active mutes of the channel, from whoever keeps them; absent = not known here */
  mutes?: readonly DigestMute[];
}

/** items shown per list; the total says how many there were */
export const DIGEST_LIST_MAX = 10;
export const DIGEST_PROJECTS_MAX = 20;
export const DIGEST_FLAPPERS_MAX = 5;
/** "unhealthy for more than 24 h" */
export const LONG_UNHEALTHY_MS = 24 * 3600_000;

const FLAP_KINDS = new Set<NotifyEvent["kind"]>([
  "state",
  "health-lost",
  "health-recovered",
  "health",
]);

function capped<T>(items: readonly T[], max: number): Capped<T> {
  return { items: items.slice(0, max), total: items.length };
}

/** An event's cluster as a subscription filter sees it. */
const asSnap = (event: NotifyEvent): ClusterSnap => ({
  uid: event.clusterUid,
  name: event.name,
  project: event.project,
  state: "",
  health: "",
  tags: event.tags,
});

/**
 * The clusters part of a channel's digest, counted one cluster at a time: a digest streams the
 * fleet from the store through `add` and holds only its counts and the long-unhealthy list, never
 * the fleet (50,000 snapshots at once cost about 20 MB, more than a poll).
 */
export interface ClusterTally {
  add(cluster: ClusterSnap): void;
  readonly total: number;
  projects(): DigestProjectCounts[];
  longUnhealthy(): DigestLongUnhealthy[];
}

export function tallyClusters(
  subscriptions: readonly Subscription[],
  unhealthySince: ReadonlyMap<string, UnhealthySince>,
  to: string,
): ClusterTally {
  const active = subscriptions.filter((sub) => !sub.pausedReason);
  const covers = (cluster: ClusterSnap) => active.some((sub) => matchesFilter(sub, cluster));
  const longBefore = Date.parse(to) - LONG_UNHEALTHY_MS;
  const projects = new Map<string, DigestProjectCounts & { states: Map<string, number> }>();
  const longUnhealthy: DigestLongUnhealthy[] = [];
  let total = 0;
  return {
    add(cluster) {
      if (!covers(cluster)) return;
      total += 1;
      let counts = projects.get(cluster.project);
      if (!counts) {
        counts = {
          project: cluster.project,
          total: 0,
          byState: [],
          healthy: 0,
          unhealthy: 0,
          unknown: 0,
          states: new Map(),
        };
        projects.set(cluster.project, counts);
      }
      counts.total += 1;
      counts.states.set(cluster.state, (counts.states.get(cluster.state) ?? 0) + 1);
      if (isHealthy(cluster.health)) counts.healthy += 1;
      else if (isHealthUnknown(cluster.health)) counts.unknown += 1;
      else counts.unhealthy += 1;
      const since = unhealthySince.get(cluster.uid);
      if (isKnownUnhealthy(cluster.health) && since && Date.parse(since.since) <= longBefore) {
        longUnhealthy.push({
          name: cluster.name,
          project: cluster.project,
          health: cluster.health,
          since: since.since,
          exact: since.exact,
        });
      }
    },
    get total() {
      return total;
    },
    projects: () =>
      [...projects.values()]
        .map(({ states, ...counts }) => ({
          ...counts,
          byState: [...states].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
        }))
        .sort((a, b) => b.total - a.total || a.project.localeCompare(b.project)),
    longUnhealthy: () =>
      [...longUnhealthy].sort(
        (a, b) => a.since.localeCompare(b.since) || a.name.localeCompare(b.name),
      ),
  };
}

export function buildChannelDigest(input: ChannelDigestInput): ChannelDigestPayload {
  const active = input.subscriptions.filter((sub) => !sub.pausedReason);
  const covers = (cluster: ClusterSnap) => active.some((sub) => matchesFilter(sub, cluster));
  const hearsClusters = (cluster: ClusterSnap) =>
    active.some((sub) => sub.kind !== "alerts" && matchesFilter(sub, cluster));
  const hearsAlerts = (cluster: ClusterSnap) =>
    active.some((sub) => sub.kind !== "clusters" && matchesFilter(sub, cluster));

  let tally = input.tally;
  if (!tally) {
    tally = tallyClusters(input.subscriptions, input.unhealthySince, input.to);
    for (const cluster of input.clusters ?? []) tally.add(cluster);
  }
  const total = tally.total;
  const projectList = tally.projects();
  const longUnhealthy = tally.longUnhealthy();

  const listed = (kind: NotifyEvent["kind"], hears: (cluster: ClusterSnap) => boolean) => {
    const seen = new Set<string>();
    const items: DigestClusterEvent[] = [];
    for (const event of input.events) {
      if (event.kind !== kind || !hears(asSnap(event))) continue;
      // an alert can be raised again; a cluster is launched or deleted once a window
      const key = kind.startsWith("alert")
        ? `${event.clusterUid}\u0000${event.at}`
        : event.clusterUid;
      if (seen.has(key)) continue;
      seen.add(key);
      const item: DigestClusterEvent = { name: event.name, project: event.project, at: event.at };
      if (event.detail) item.detail = event.detail;
      items.push(item);
    }
    return capped(items, DIGEST_LIST_MAX);
  };

  const moves = new Map<string, { event: NotifyEvent; count: number }>();
  for (const event of input.events) {
    if (!FLAP_KINDS.has(event.kind) || !covers(asSnap(event))) continue;
    const entry = moves.get(event.clusterUid) ?? { event, count: 0 };
    entry.count += 1;
    entry.event = event;
    moves.set(event.clusterUid, entry);
  }
  const flapping: DigestFlapper[] = [...moves.entries()]
    .filter(([, entry]) => entry.count > FLAP_MAX_CHANGES)
    .sort((a, b) => b[1].count - a[1].count || a[1].event.name.localeCompare(b[1].event.name))
    .map(([uid, { event, count }]) => ({
      name: event.name,
      project: event.project,
      transitions: count,
      flappingNow: input.flappingNow.has(uid),
    }));

  const digest: ChannelDigestPayload = {
    channel: input.channel,
    preview: input.preview,
    timeZone: input.timeZone,
    from: input.from,
    to: input.to,
    subscriptions: active.length,
    total,
    projects: capped(projectList, DIGEST_PROJECTS_MAX),
    longUnhealthy: capped(longUnhealthy, DIGEST_LIST_MAX),
    launched: listed("new", hearsClusters),
    deleted: listed("deleted", hearsClusters),
    alertsRaised: listed("alert-raised", hearsAlerts),
    alertsResolved: listed("alert-resolved", hearsAlerts),
    flapping: capped(flapping, DIGEST_FLAPPERS_MAX),
  };
  if (input.cadence) digest.cadence = input.cadence;
  if (input.mutes) digest.mutes = capped(input.mutes, DIGEST_LIST_MAX);
  return digest;
}
