import type {
  ChannelDigestPayload,
  DigestMute,
  DigestSchedule,
  UnhealthySince,
} from "../model/channel-digest.ts";
import { DigestStore } from "../store/digests.ts";
import { HoldStore } from "../store/holds.ts";
import { NotifyEventLog } from "../store/notify-events.ts";
import { SnapshotStore } from "../store/snapshots.ts";
import type { SqlExecutor } from "../store/sql.ts";
import { SubscriptionStore } from "../store/subscriptions.ts";
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
  const tally = tallyClusters(subscriptions, fleet.unhealthySince, to);
  await new SnapshotStore(db).forEach((cluster) => {
    tally.add(cluster);
  });
  return buildChannelDigest({
    channel: request.channel,
    cadence: request.schedule?.cadence,
    preview: request.preview,
    timeZone: request.schedule?.timeZone ?? "UTC",
    subscriptions,
    tally,
    events: await new NotifyEventLog(db).between(iso(from), to),
    unhealthySince: fleet.unhealthySince,
    flappingNow: fleet.flappingNow,
    from: iso(from),
    to,
    mutes: request.mutes ?? (await activeMutes(db, request.channel, request.now)),
  });
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
