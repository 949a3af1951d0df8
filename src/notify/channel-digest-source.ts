import type { ChannelDigestPayload, DigestMute, DigestSchedule } from "../model/channel-digest.ts";
import type { Db } from "../store/db.ts";
import { DigestStore } from "../store/digests.ts";
import { NotifyEventLog } from "../store/notify-events.ts";
import { SnapshotStore } from "../store/snapshots.ts";
import { SubscriptionStore } from "../store/subscriptions.ts";
import { buildChannelDigest } from "./channel-digest.ts";
import { EVENT_RETENTION_MS } from "./digest-events.ts";

const DAY_MS = 24 * 3600_000;
const iso = (ms: number) => new Date(ms).toISOString();

export interface ComposeRequest {
  channel: string;
  /** the channel's schedule, if it has one: its cadence and time zone */
  schedule?: DigestSchedule;
  now: number;
  preview: boolean;
  mutes?: readonly DigestMute[];
}

/**
 * One channel's digest from the store as it stands: its subscriptions, the clusters as last
 * polled, the events since its last digest (or the cadence's period when none went out yet),
 * since when clusters have been unhealthy, and which flap now. Undefined when the channel has no
 * active subscription: there is nothing it follows.
 */
export function composeChannelDigest(
  db: Db,
  request: ComposeRequest,
): ChannelDigestPayload | undefined {
  const subscriptions = new SubscriptionStore(db, { now: () => request.now })
    .forChannel(request.channel)
    .filter((sub) => !sub.pausedReason);
  if (subscriptions.length === 0) return undefined;
  const period = request.schedule?.cadence === "weekly" ? 7 * DAY_MS : DAY_MS;
  const last = new DigestStore(db).lastRun(request.channel);
  const oldest = request.now - EVENT_RETENTION_MS;
  const from = Math.max(last ? Date.parse(last.builtAt) : request.now - period, oldest);
  const to = iso(request.now);
  const log = new NotifyEventLog(db);
  const snapshots = new SnapshotStore(db);
  const flappingNow = new Set(
    [...snapshots.flapHistories()].filter(([, h]) => h.reported).map(([uid]) => uid),
  );
  return buildChannelDigest({
    channel: request.channel,
    cadence: request.schedule?.cadence,
    preview: request.preview,
    timeZone: request.schedule?.timeZone ?? "UTC",
    subscriptions,
    clusters: snapshots.all(),
    events: log.between(iso(from), to),
    unhealthySince: log.unhealthySince(),
    flappingNow,
    from: iso(from),
    to,
    mutes: request.mutes,
  });
}
