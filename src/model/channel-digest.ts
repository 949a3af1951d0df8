/**
 * The scheduled channel digest (`/palette digest daily 09:00 Europe/Berlin`): its schedule, the
 * events the poll logs for it, and the digest itself as plain JSON, which the outbox stores and
 * views/channel-digest.ts renders.
 */

export type DigestCadence = "daily" | "weekly";

/** One channel's digest schedule: a wall-clock time in an IANA time zone. */
export interface DigestSchedule {
  channel: string;
  cadence: DigestCadence;
  /** weekly only: 0 = Sunday … 6 = Saturday (as cron and Date#getUTCDay count) */
  weekday?: number;
  hour: number;
  minute: number;
  /** IANA name, e.g. Europe/Berlin; UTC when the command named none */
  timeZone: string;
  setBy: string;
  /** ISO; an occurrence before this is not owed (setting a digest never posts a past one) */
  setAt: string;
}

/** What the poll logs for the digest, one row per fact (kept about 8 days). */
export type NotifyEventKind =
  | "new"
  | "deleted"
  | "state"
  | "health-lost"
  | "health-recovered"
  /** any other health move, e.g. Healthy → Unknown */
  | "health"
  | "alert-raised"
  | "alert-resolved";

export interface NotifyEvent {
  at: string;
  clusterUid: string;
  name: string;
  /** the cluster's own project; "" for tenant scope */
  project: string;
  /** the cluster's tags then, so a deleted cluster still meets a channel's tag filter */
  tags: string[];
  kind: NotifyEventKind;
  /** plain text: "Provisioning → Running", "ClusterHealth: reason" */
  detail?: string;
}

/** Since when a cluster has been unhealthy without a break. */
export interface UnhealthySince {
  since: string;
  /** false: first seen unhealthy then (a first poll, an upgrade), so "at least since" */
  exact: boolean;
}

/**
 * A mute, as the digest shows it. Mutes are another part of the bot's work; whoever keeps them
 * passes the channel's active ones in and the digest lists them.
 */
export interface DigestMute {
  /** cluster name (Palette-supplied: escaped when rendered) */
  cluster: string;
  /** ISO */
  until: string;
  /** who muted it, shown as text (a daily message should ping nobody) */
  by: string;
  reason?: string;
}

/** A list the digest shows in part: the first items, and how many there were in all. */
export interface Capped<T> {
  items: T[];
  total: number;
}

export interface DigestProjectCounts {
  project: string;
  total: number;
  /** state → clusters, most first */
  byState: Array<[string, number]>;
  healthy: number;
  unhealthy: number;
  /** health not known yet (Unknown, or Palette did not say) */
  unknown: number;
}

export interface DigestLongUnhealthy {
  name: string;
  project: string;
  health: string;
  since: string;
  exact: boolean;
}

export interface DigestClusterEvent {
  name: string;
  project: string;
  at: string;
  detail?: string;
}

export interface DigestFlapper {
  name: string;
  project: string;
  transitions: number;
  /** the pipeline holds it as flapping right now */
  flappingNow: boolean;
}

/** The digest of one channel, as built at one moment; plain JSON (it waits in the outbox). */
export interface ChannelDigestPayload {
  channel: string;
  /** undefined for a preview of a channel without a schedule */
  cadence?: DigestCadence;
  /** `/palette digest now`: shown to the requester only */
  preview: boolean;
  /** the time zone times are shown in */
  timeZone: string;
  /** what "since the last digest" means: ISO from … to */
  from: string;
  to: string;
  /** the channel's subscriptions the digest follows */
  subscriptions: number;
  /** clusters the channel's subscriptions cover now */
  total: number;
  projects: Capped<DigestProjectCounts>;
  longUnhealthy: Capped<DigestLongUnhealthy>;
  launched: Capped<DigestClusterEvent>;
  deleted: Capped<DigestClusterEvent>;
  alertsRaised: Capped<DigestClusterEvent>;
  alertsResolved: Capped<DigestClusterEvent>;
  flapping: Capped<DigestFlapper>;
  /** absent: nobody passed mutes in (not the same as none) */
  mutes?: Capped<DigestMute>;
  /** what the radar holds for the channel's clusters (issue 28); absent: not read */
  risks?: DigestRisks;
}

/** The digest's "Risks" section: counts by kind and the worst five, worst first. */
export interface DigestRisks {
  /** risk kind (certificates, repave, backup, update) → clusters */
  counts: Record<string, number>;
  worst: Capped<{
    name: string;
    project: string;
    severity: string;
    title: string;
    summary: string;
  }>;
}

/**
 * The outbox row a scheduled digest travels in: an ordinary `post` whose `text` is the plain
 * summary, with the digest beside it. The sender renders the digest; a build that does not know
 * digests (rolled back onto the same store) posts the text, and no table had to change.
 */
export interface ChannelDigestPost {
  text: string;
  channelDigest: ChannelDigestPayload;
}

export function isChannelDigestPost(payload: unknown): payload is ChannelDigestPost {
  return (
    typeof payload === "object" &&
    payload !== null &&
    typeof (payload as { channelDigest?: unknown }).channelDigest === "object" &&
    (payload as { channelDigest?: unknown }).channelDigest !== null
  );
}
