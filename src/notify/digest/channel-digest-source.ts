import type {
  ChannelDigestPayload,
  DigestMute,
  DigestRisks,
  DigestSchedule,
  UnhealthySince,
} from "../../model/channel-digest.ts";
import { compareRisks, KIND_TITLES, type Risk } from "../../model/risk.ts";
import { hearsPoll, matchesFilter, type Subscription } from "../../model/subscription.ts";
import { DigestStore } from "../../store/digests.ts";
import { HoldStore } from "../../store/holds.ts";
import { NotifyEventLog } from "../../store/notify-events.ts";
import { RadarStore } from "../../store/radar.ts";
import { SnapshotStore } from "../../store/snapshots.ts";
import type { SqlExecutor } from "../../store/sql.ts";
import { SubscriptionStore } from "../../store/subscriptions.ts";
import { buildChannelDigest, tallyClusters } from "./channel-digest.ts";
import { EVENT_RETENTION_MS } from "./digest-events.ts";

const DAY_MS = 24 * 3600_000;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * What every channel's digest at one moment shares: small (the unhealthy and flapping clusters).
 * The snapshots themselves are streamed per digest (`SnapshotStore.forEach`), never held.
 */
export interface FleetNow {
  unhealthySince: ReadonlyMap<string, UnhealthySince>;
  /** clusters the pipeline holds as flapping right now */
  flappingNow: ReadonlySet<string>;
}

export async function readFleet(db: SqlExecutor): Promise<FleetNow> {
  const snapshots = new SnapshotStore(db);
  return {
    unhealthySince: await new NotifyEventLog(db).unhealthySince(),
    flappingNow: new Set(
      [...(await snapshots.flapHistories())].filter(([, h]) => h.reported).map(([uid]) => uid),
    ),
  };
}

export interface ComposeRequest {
  channel: string;
  /** the channel's schedule, if it has one: its cadence and time zone */
  schedule?: DigestSchedule;
  now: number;
  preview: boolean;
  mutes?: readonly DigestMute[];
  /** the fleet, when the caller read it already (several channels at one tick read it once) */
  fleet?: FleetNow;
}

/**
 * One channel's digest from the store as it stands: its subscriptions, the clusters as last
 * polled, the events since its last digest (or the cadence's period when none went out yet),
 * since when clusters have been unhealthy, and which flap now. Undefined when the channel has no
 * active subscription: there is nothing it follows.
 */
export async function composeChannelDigest(
  db: SqlExecutor,
  request: ComposeRequest,
): Promise<ChannelDigestPayload | undefined> {
  const subscriptions = (
    await new SubscriptionStore(db, { now: () => request.now }).forChannel(request.channel)
  ).filter((sub) => !sub.pausedReason);
  if (subscriptions.length === 0) return undefined;
  const period = request.schedule?.cadence === "weekly" ? 7 * DAY_MS : DAY_MS;
  const last = await new DigestStore(db).lastRun(request.channel);
  const oldest = request.now - EVENT_RETENTION_MS;
  const from = Math.max(last ? Date.parse(last.builtAt) : request.now - period, oldest);
  const to = iso(request.now);
  const fleet = request.fleet ?? (await readFleet(db));
  // one pass over the snapshots, a batch at a time: the digest holds counts, not the fleet
  // the clusters and events are the poll's subscriptions'; a `risks` one adds the Risks section
  const pollSubscriptions = subscriptions.filter(hearsPoll);
  const tally = tallyClusters(pollSubscriptions, fleet.unhealthySince, to);
  await new SnapshotStore(db).forEach((cluster) => {
    tally.add(cluster);
  });
  const digest = buildChannelDigest({
    channel: request.channel,
    cadence: request.schedule?.cadence,
    preview: request.preview,
    timeZone: request.schedule?.timeZone ?? "UTC",
    subscriptions: pollSubscriptions,
    tally,
    events: await new NotifyEventLog(db).between(iso(from), to),
    unhealthySince: fleet.unhealthySince,
    flappingNow: fleet.flappingNow,
    from: iso(from),
    to,
    mutes: request.mutes ?? (await activeMutes(db, request.channel, request.now)),
  });
  return { ...digest, risks: await digestRisks(db, subscriptions) };
}

/**
 * The radar's risks of the clusters the channel follows: counts by kind, the worst five. One
 * query (each risk with its cluster's snapshot), not one per risk: a fleet may hold thousands.
 */
export async function digestRisks(
  db: SqlExecutor,
  subscriptions: Subscription[],
): Promise<DigestRisks> {
  const followed: Array<{ name: string; project: string; risk: Risk }> = [];
  for (const { row, snap } of await new RadarStore(db).risksWithSnapshots()) {
    const cluster = snap ?? {
      uid: row.clusterUid,
      name: row.name,
      project: row.project,
      state: "",
      health: "",
      tags: [],
    };
    if (subscriptions.some((sub) => matchesFilter(sub, cluster))) {
      followed.push({ name: row.name, project: row.project, risk: row.risk });
    }
  }
  const counts: Record<string, number> = {};
  for (const item of followed) counts[item.risk.kind] = (counts[item.risk.kind] ?? 0) + 1;
  const worst = [...followed].sort(compareRisks).slice(0, 5);
  return {
    counts,
    worst: {
      total: followed.length,
      items: worst.map((item) => ({
        name: item.name,
        project: item.project,
        severity: item.risk.severity,
        title: KIND_TITLES[item.risk.kind],
        summary: item.risk.summary,
      })),
    },
  };
}

/** The channel's mutes still running at `now`, as the digest lists them. */
async function activeMutes(db: SqlExecutor, channel: string, now: number): Promise<DigestMute[]> {
  return (await new HoldStore(db).running(now, channel))
    .filter((hold) => hold.kind === "mute")
    .map((hold) => ({
      cluster: hold.clusterName,
      until: iso(hold.untilMs),
      by: hold.userId,
      reason: hold.reason,
    }));
}
