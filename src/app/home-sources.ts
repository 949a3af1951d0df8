import type { webApi } from "@slack/bolt";
import type { Clock } from "../clock.ts";
import type { Hold } from "../model/notification.ts";
import type { Poller } from "../notify/poll/poll.ts";
import type { PaletteApi } from "../palette/api.ts";
import { HoldStore } from "../store/holds.ts";
import { RadarStore } from "../store/radar.ts";
import type { SqlDb } from "../store/sql.ts";
import { SubscriptionStore } from "../store/subscriptions.ts";
import type { FleetCluster, FleetSnapshot, HomeHold, HomeSubscription } from "../views/app-home.ts";

export interface HomeSourceDeps {
  poller: Pick<Poller, "lastSnapshot">;
  palette: PaletteApi;
  db: SqlDb;
  projects: string[];
  clock: Clock;
  /** for "channels the user is in"; absent: every subscription is shown */
  slack?: Pick<webApi.WebClient, "users">;
  /** a snapshot older than this is read again from Palette (once, shared by every opener) */
  freshForMs?: number;
}

/**
 * The App Home's data: the poller's last snapshot while it is fresh (no Palette call at all),
 * else one tag-less search per project; and the subscriptions, snoozes and mutes of the channels
 * the user is in.
 */
/** how long one user's channel list serves both lists of a Home open (and a quick re-open) */
const MEMBERSHIP_FRESH_MS = 10_000;

export function homeSources(deps: HomeSourceDeps): {
  fleet(): Promise<FleetSnapshot>;
  subscriptionsFor(userId: string): Promise<HomeSubscription[]>;
  holdsFor(userId: string): Promise<HomeHold[]>;
  risks(): Promise<Record<string, number>>;
} {
  const freshForMs = deps.freshForMs ?? 5 * 60_000;
  const subscriptions = new SubscriptionStore(deps.db, deps.clock);
  const holds = new HoldStore(deps.db);
  /**
   * users.conversations walks by user: in flight, or done less than MEMBERSHIP_FRESH_MS ago.
   * Kept a little past their end because the two lists reach the walk each after its own store
   * read, and on PostgreSQL the second read can end after a quick walk has.
   */
  const memberships = new Map<string, { walk: Promise<Set<string>>; doneAt?: number }>();
  // One Palette read at a time for every user opening the tab, and its result kept as long as a
  // snapshot would be: a failing poller must not turn each Home open into a fleet scan.
  let read: FleetSnapshot | undefined;
  let reading: Promise<FleetSnapshot> | undefined;

  const fromPoller = async (): Promise<FleetSnapshot | undefined> => {
    const snapshot = await deps.poller.lastSnapshot();
    const at = snapshot.at ? Date.parse(snapshot.at) : Number.NaN;
    if (Number.isNaN(at)) return undefined;
    return {
      at,
      clusters: snapshot.clusters.map((cluster) => ({
        uid: cluster.uid,
        name: cluster.name,
        projectUid: cluster.project,
        state: cluster.state,
        health: cluster.health,
        // the poller keeps no provider; the home tab shows it only when it has it
        provider: "",
      })),
    };
  };

  const fromPalette = async (): Promise<FleetSnapshot> => {
    const clusters: FleetCluster[] = [];
    const scopes = deps.projects.length > 0 ? deps.projects : [undefined];
    for (const projectUid of scopes) {
      for await (const summary of deps.palette.searchAllClusters({ projectUid })) {
        clusters.push({
          uid: summary.metadata?.uid ?? "",
          name: summary.metadata?.name ?? "",
          projectUid: summary.specSummary?.projectMeta?.uid ?? projectUid ?? "",
          projectName: summary.specSummary?.projectMeta?.name ?? undefined,
          state: summary.status?.state ?? "",
          health: summary.status?.health?.state ?? "",
          provider: summary.specSummary?.cloudConfig?.cloudType ?? "",
        });
      }
    }
    return { at: deps.clock.now(), clusters };
  };

  const isFresh = (snapshot: FleetSnapshot | undefined): boolean =>
    snapshot !== undefined && deps.clock.now() - snapshot.at <= freshForMs;

  return {
    async fleet() {
      const polled = await fromPoller();
      if (polled && isFresh(polled)) return polled;
      const lastRead = read;
      if (lastRead && isFresh(lastRead)) return lastRead;
      reading ??= fromPalette()
        .then((fleet) => {
          read = fleet;
          return fleet;
        })
        .finally(() => {
          reading = undefined;
        });
      try {
        return await reading;
      } catch (error) {
        // an old picture (its age is shown) beats an error when Palette is struggling
        const newest = [polled, lastRead].reduce<FleetSnapshot | undefined>(
          (best, s) => (s && (!best || s.at > best.at) ? s : best),
          undefined,
        );
        if (!newest) throw error;
        return newest;
      }
    },

    async subscriptionsFor(userId) {
      const all = await subscriptions.all();
      if (!deps.slack || all.length === 0) return all.map(toHome);
      const channels = await channelsOf(userId);
      return all.filter((subscription) => channels.has(subscription.channel)).map(toHome);
    },

    // the radar's counts by severity, from the store (src/radar/): no Palette call
    risks: () => new RadarStore(deps.db).counts(),

    async holdsFor(userId) {
      const running = await holds.running(deps.clock.now());
      if (!deps.slack || running.length === 0) return running.map(toHomeHold);
      const channels = await channelsOf(userId);
      return running.filter((hold) => channels.has(hold.channel)).map(toHomeHold);
    },
  };

  /**
   * The channels the user is in. Subscriptions and holds both ask when the tab opens: they share
   * one walk of users.conversations (Tier 3), not one each.
   */
  function channelsOf(userId: string): Promise<Set<string>> {
    const now = deps.clock.now();
    for (const [user, known] of memberships) {
      if (known.doneAt !== undefined && now - known.doneAt > MEMBERSHIP_FRESH_MS) {
        memberships.delete(user);
      }
    }
    const known = memberships.get(userId);
    if (known) return known.walk;
    const entry: { walk: Promise<Set<string>>; doneAt?: number } = {
      walk: Promise.resolve(new Set()),
    };
    entry.walk = (async () => {
      const channels = new Set<string>();
      let cursor: string | undefined;
      do {
        const page = await deps.slack!.users.conversations({
          user: userId,
          types: "public_channel,private_channel",
          exclude_archived: true,
          limit: 200,
          cursor,
        });
        for (const channel of page.channels ?? []) if (channel.id) channels.add(channel.id);
        cursor = page.response_metadata?.next_cursor || undefined;
      } while (cursor);
      return channels;
    })().then(
      (channels) => {
        entry.doneAt = deps.clock.now();
        return channels;
      },
      (error: unknown) => {
        memberships.delete(userId);
        throw error;
      },
    );
    memberships.set(userId, entry);
    return entry.walk;
  }
}

function toHomeHold(hold: Hold): HomeHold {
  return {
    channel: hold.channel,
    kind: hold.kind,
    clusterName: hold.clusterName,
    userId: hold.userId,
    reason: hold.reason,
    untilMs: hold.untilMs,
  };
}

function toHome(subscription: {
  channel: string;
  kind: string;
  project?: string | null;
  tag?: string | null;
}): HomeSubscription {
  return {
    channel: subscription.channel,
    kind: subscription.kind,
    project: subscription.project ?? undefined,
    tag: subscription.tag ?? undefined,
  };
}
