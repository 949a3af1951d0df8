import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { type Risk, type RiskKind, riskFingerprint } from "../model/risk.ts";
import { planNotices, ROLLUP_OVER, rollupKey, rollupLabel } from "../model/risk-rollup.ts";
import { matchesFilter } from "../model/subscription.ts";
import { ChannelPacing } from "../notify/delivery/channel-pacing.ts";
import { createPostOnce } from "../notify/delivery/post-once.ts";
import { type SlackPoster, SlackSendError } from "../notify/delivery/slack-port.ts";
import { FencedOut } from "../store/lease.ts";
import { type Notice, type RadarCluster, RadarStore, unpostedKey } from "../store/radar.ts";
import type { SqlDb, SqlExecutor } from "../store/sql.ts";
import { SubscriptionStore } from "../store/subscriptions.ts";
import { riskGoneBlocks, riskGoneText, riskNoticeBlocks, riskNoticeText } from "../views/risk.ts";
import { ROLLUP_LINES, riskRollupBlocks, riskRollupText } from "../views/risk-rollup.ts";

/**
 * Tells the channels subscribed to `risks` about one cluster's risks: a notice the first time a
 * risk holds, the same message edited as it changes, "no longer holds" once it is gone, and
 * nothing while it holds unchanged. The first notice is claimed in the store before it is posted,
 * so two passes (or a pass after a crash) never post it twice.
 *
 * New notices are claimed as `sync` finds them and posted at `flush` (the radar flushes after
 * each batch of readings, after the repave list and after retries): notices alike due together
 * for one channel, more than ROLLUP_OVER of them, are one roll-up message (issue 31 item 3), as
 * a storm of cluster cards is one digest; newcomers of a group with an open roll-up join it, and
 * the roll-up is edited in place as its members change or end.
 *
 * Only the lease holder tells (issue 37 item 3): every write runs in a transaction the lease
 * fences, and the fence is checked again right before each post or edit goes out, so a replica
 * deposed while it waited (a GC pause, a stalled node) neither claims nor posts beside the new
 * leader. A roll-up's edit is recorded only at the version of its members it read, so a change
 * made while the edit was in flight is edited in its turn.
 */
export interface RiskNotifier {
  sync(
    cluster: Pick<RadarCluster, "uid" | "name" | "project" | "tags">,
    risks: readonly Risk[],
    readAt?: number,
  ): Promise<void>;
  /**
   * Tries again the notices Slack refused for now (a 429, once its Retry-After passed) or lost
   * (no ts after NOTICE_RETRY_MS), from the risks the store holds: the radar calls it between
   * reads, so they do not wait for the sweep to read their cluster again.
   */
  retryDue(): Promise<void>;
  /**
   * Posts the notices claimed since the last flush (singles, or one roll-up per group of many
   * alike) and edits the roll-ups whose members changed.
   */
  flush(): Promise<void>;
}

/** Slack takes about one message a second per channel (as for cluster notifications) */
export const NOTICE_GAP_MS = 1_000;
/** a quiet channel may take this many notices at once before the gap applies */
export const NOTICE_BURST = 3;
/** clusters whose notices are tried again per look */
const RETRY_BATCH = 50;
/** roll-ups edited per flush (the rest at the next) */
const ROLLUP_EDITS = 50;

const GONE = "gone";

/**
 * A post Slack failed without saying it did not post (a time-out, a 5xx) keeps its claim, so a
 * pass soon after does not post it twice; after this long with no ts recorded it is posted again
 * (a duplicate only if Slack posted and the answer was lost, rather than a notice lost for good).
 */
export const NOTICE_RETRY_MS = 10 * 60_000;

/** Slack surely did not post: the claim is given back so the next pass tries again. */
function surelyNotPosted(error: unknown): boolean {
  return error instanceof SlackSendError && error.kind !== "transient";
}

export function createRiskNotifier(deps: {
  db: SqlDb;
  slack: SlackPoster;
  clock: Clock;
  logger: Logger;
  /** waits for a channel's pace; default setTimeout (tests advance a ManualClock) */
  sleep?: (ms: number) => Promise<void>;
  /** throws FencedOut when this replica no longer leads (src/store/lease.ts) */
  fence?: (tx: SqlExecutor) => Promise<void>;
}): RiskNotifier {
  const { db, slack, clock, logger } = deps;
  const sleep =
    deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const store = new RadarStore(db);
  const subscriptions = new SubscriptionStore(db, clock);
  const pacing = new ChannelPacing(NOTICE_GAP_MS, NOTICE_BURST);
  // notices and roll-ups are posted once: a claim retried after a lost answer finds its post
  const once = createPostOnce({ db, slack, logger });
  const noticeKey = (channel: string, uid: string, kind: RiskKind) =>
    `radar-notice:${channel}:${uid}:${kind}`;
  const rollupPostKey = (channel: string, group: string) => `radar-rollup:${channel}:${group}`;

  /** a write, in a transaction the lease fences: a deposed replica writes nothing */
  const fenced = <T>(work: (inTx: RadarStore, tx: SqlExecutor) => Promise<T>): Promise<T> =>
    db.transaction(async (tx) => {
      await deps.fence?.(tx);
      return work(new RadarStore(tx), tx);
    });
  /**
   * A post Slack took, recorded without the fence: the message is in the channel whoever leads
   * now, and a ts left unrecorded would have the next leader post it again once NOTICE_RETRY_MS
   * passed. Guarded by the claim instead (ts IS NULL, src/store/radar.ts), so a post the new
   * leader recorded meanwhile is not overwritten; claims and edits stay fenced.
   */
  const recordPosted = <T>(work: (inTx: RadarStore, tx: SqlExecutor) => Promise<T>): Promise<T> =>
    db.transaction((tx) => work(new RadarStore(tx), tx));
  /** right before a post: still the leader, and which of these claims are not posted yet */
  const stillClaimed = (
    channel: string,
    notices: ReadonlyArray<Pick<Notice, "clusterUid" | "kind">>,
  ): Promise<Set<string>> => fenced((inTx) => inTx.unposted(channel, notices));
  /** right before an edit: still the leader */
  const stillLeading = (): Promise<void> => fenced(async () => undefined);

  /** waits for the channel's next slot, then books it */
  const paced = async (channel: string): Promise<void> => {
    const wait = pacing.readyAt(channel) - clock.now();
    if (wait > 0) await sleep(wait);
    pacing.sent(channel, clock.now());
  };

  /** Slack said "not now": the channel slows down, the notice waits for its Retry-After */
  const limited = async (
    notice: Pick<Notice, "channel" | "clusterUid" | "kind">,
    error: unknown,
  ): Promise<boolean> => {
    if (!(error instanceof SlackSendError) || error.kind !== "ratelimited") return false;
    const until = clock.now() + (error.retryAfterMs ?? NOTICE_GAP_MS);
    pacing.slowDown(notice.channel, until);
    await fenced((inTx) => inTx.noticeRetryAt(notice, until));
    return true;
  };

  /** the channels risks are told in now (subscribed, not paused), of one cluster or of any */
  const channelsFor = async (
    cluster?: Pick<RadarCluster, "uid" | "name" | "project" | "tags">,
  ): Promise<string[]> => {
    const snap = cluster && { ...cluster, state: "", health: "" };
    const channels = new Set<string>();
    for (const sub of await subscriptions.all()) {
      if (sub.kind !== "risks" || sub.pausedReason) continue;
      if (!snap || matchesFilter(sub, snap)) channels.add(sub.channel);
    }
    return [...channels];
  };

  /** the channels with a risks subscription, paused or not */
  const subscribedChannels = async (): Promise<string[]> => {
    const channels = new Set<string>();
    for (const sub of await subscriptions.all())
      if (sub.kind === "risks") channels.add(sub.channel);
    return [...channels];
  };

  /** a claimed notice waiting for the next flush */
  interface Due {
    channel: string;
    cluster: Pick<RadarCluster, "uid" | "name" | "project">;
    risk: Risk;
    since: number;
    readAt: number | undefined;
  }
  let pending: Due[] = [];
  let flushing: Promise<void> = Promise.resolve();

  /** claims the notice (once: another pass or a lost post holds it otherwise) for the flush */
  const post = async (
    channel: string,
    cluster: Pick<RadarCluster, "uid" | "name" | "project">,
    risk: Risk,
    since: number,
    readAt: number | undefined,
  ): Promise<void> => {
    const now = clock.now();
    const shown = riskFingerprint(risk);
    const claimed = await fenced((inTx) =>
      inTx.claimNotice(channel, cluster.uid, risk.kind, shown, now, now - NOTICE_RETRY_MS),
    );
    if (!claimed) return;
    pending.push({ channel, cluster, risk, since, readAt });
  };

  const postSingle = async (due: Due): Promise<void> => {
    const { channel, cluster, risk, since, readAt } = due;
    const row = {
      clusterUid: cluster.uid,
      name: cluster.name,
      project: cluster.project,
      risk,
      since,
      ...(readAt !== undefined ? { readAt } : {}),
    };
    try {
      await paced(channel);
      // forgotten meanwhile (its channel unsubscribed) or taken over: not posted
      const claimed = await stillClaimed(channel, [{ clusterUid: cluster.uid, kind: risk.kind }]);
      if (!claimed.has(unpostedKey(cluster.uid, risk.kind))) return;
      const key = noticeKey(channel, cluster.uid, risk.kind);
      const { ts } = await once.post(key, {
        channel,
        text: riskNoticeText(row),
        blocks: riskNoticeBlocks(row),
      });
      await recordPosted(async (inTx, tx) => {
        // the next notice of this cluster and kind is another message: no marker carries over
        // (left alone when the claim was another's by now: the marker may be its post's)
        if (await inTx.noticePosted(channel, cluster.uid, risk.kind, ts, clock.now())) {
          await once.settled(tx, key);
        }
      });
    } catch (error) {
      if (error instanceof FencedOut) throw error;
      logger.warn(
        { channel, cluster: cluster.uid, kind: risk.kind, err: String(error) },
        "risk notice not posted",
      );
      // a 429: the claim is kept and tried again once Slack's Retry-After has passed
      if (await limited({ channel, clusterUid: cluster.uid, kind: risk.kind }, error)) return;
      if (surelyNotPosted(error))
        await fenced((inTx) =>
          inTx.forgetNotice({ channel, clusterUid: cluster.uid, kind: risk.kind }),
        );
    }
  };

  /** many alike for one channel: one message naming them, its members remembered */
  const postRollup = async (
    channel: string,
    group: string,
    kind: RiskKind,
    claimedMembers: readonly Due[],
  ): Promise<void> => {
    await paced(channel);
    // the members forgotten or taken over meanwhile are not told
    const claimed = await stillClaimed(
      channel,
      claimedMembers.map((m) => ({ clusterUid: m.cluster.uid, kind: m.risk.kind })),
    );
    const members = claimedMembers.filter((m) =>
      claimed.has(unpostedKey(m.cluster.uid, m.risk.kind)),
    );
    const first = members[0];
    if (!first) return;
    const label = rollupLabel(first.risk);
    const shown = [...members]
      .sort((a, b) => a.cluster.name.localeCompare(b.cluster.name))
      .slice(0, ROLLUP_LINES);
    const view = {
      kind,
      ...(label !== undefined ? { label } : {}),
      members: shown.map((m) => ({
        name: m.cluster.name,
        severity: m.risk.severity,
        summary: m.risk.summary,
      })),
      holding: members.length,
      ended: 0,
      at: clock.now(),
    };
    const keys = members.map((m) => ({ channel, clusterUid: m.cluster.uid, kind: m.risk.kind }));
    try {
      const key = rollupPostKey(channel, group);
      const { ts } = await once.post(key, {
        channel,
        text: riskRollupText(view),
        blocks: riskRollupBlocks(view),
      });
      const at = clock.now();
      await recordPosted(async (inTx, tx) => {
        // no member still unposted (the next leader told them meanwhile): nothing of this post
        if ((await inTx.joinRollup(keys, group, ts, at)) === 0) return;
        await once.settled(tx, key);
        await inTx.rollupPosted({ channel, group, kind, ts }, at);
      });
    } catch (error) {
      if (error instanceof FencedOut) throw error;
      logger.warn(
        { channel, kind, members: members.length, err: String(error) },
        "risk roll-up not posted",
      );
      // a 429: every member's claim waits for Slack's Retry-After, then they roll up again
      if (error instanceof SlackSendError && error.kind === "ratelimited") {
        const until = clock.now() + (error.retryAfterMs ?? NOTICE_GAP_MS);
        pacing.slowDown(channel, until);
        await fenced(async (inTx) => {
          for (const key of keys) await inTx.noticeRetryAt(key, until);
        });
        return;
      }
      if (surelyNotPosted(error))
        await fenced(async (inTx) => {
          for (const key of keys) await inTx.forgetNotice(key);
        });
    }
  };

  /**
   * Edits the roll-ups whose members changed; one whose members all ended says so, then goes.
   * Shown (or dropped) only at the version read: a member that changed or ended while the edit
   * was in flight leaves the roll-up stale, and it is edited again at the next look.
   */
  const editRollups = async (): Promise<void> => {
    for (const rollup of await store.staleRollups(clock.now(), ROLLUP_EDITS)) {
      const { members, count } = await store.rollupMembers(
        rollup.channel,
        rollup.group,
        ROLLUP_LINES,
      );
      const label = rollupLabel({
        kind: rollup.kind,
        summary: members.find((m) => m.risk)?.risk?.summary ?? rollup.group.replace(/^update:/, ""),
      });
      const view = {
        kind: rollup.kind,
        ...(label !== undefined ? { label } : {}),
        members: members.map((m) => ({
          name: m.name,
          severity: m.risk?.severity ?? "info",
          summary: m.risk?.summary ?? "",
        })),
        holding: count,
        ended: rollup.ended,
        at: clock.now(),
      };
      try {
        await paced(rollup.channel);
        await stillLeading();
        await slack.update({
          channel: rollup.channel,
          ts: rollup.ts,
          text: riskRollupText(view),
          blocks: riskRollupBlocks(view),
        });
        const at = clock.now();
        await fenced((inTx) =>
          count === 0
            ? inTx.dropRollup(rollup.channel, rollup.group, rollup.version)
            : inTx.rollupShown(rollup.channel, rollup.group, rollup.version, at),
        );
      } catch (error) {
        if (error instanceof FencedOut) throw error;
        if (error instanceof SlackSendError && error.kind === "ratelimited") {
          const until = clock.now() + (error.retryAfterMs ?? NOTICE_GAP_MS);
          pacing.slowDown(rollup.channel, until);
          await fenced((inTx) => inTx.rollupRetryAt(rollup.channel, rollup.group, until));
          continue;
        }
        logger.warn(
          { channel: rollup.channel, kind: rollup.kind, err: String(error) },
          "risk roll-up not edited",
        );
        // the message is gone: its members still holding are noticed afresh at their next read
        if (error instanceof SlackSendError && error.kind === "gone") {
          await fenced((inTx) => inTx.dropRollup(rollup.channel, rollup.group));
        }
      }
    }
  };

  const edit = async (
    notice: Notice,
    text: string,
    blocks: ReturnType<typeof riskNoticeBlocks>,
    shown: string,
    gone: boolean,
  ): Promise<void> => {
    if (!notice.ts) return;
    try {
      await paced(notice.channel);
      await stillLeading();
      await slack.update({ channel: notice.channel, ts: notice.ts, text, blocks });
      await fenced((inTx) => inTx.noticeShown(notice, shown, gone, clock.now()));
    } catch (error) {
      if (error instanceof FencedOut) throw error;
      // a 429: the edit is made once Slack's Retry-After has passed (retryDue)
      if (await limited(notice, error)) return;
      logger.warn(
        {
          channel: notice.channel,
          cluster: notice.clusterUid,
          kind: notice.kind,
          err: String(error),
        },
        "risk notice not edited",
      );
      // the message is gone or can no longer be edited: a gone risk needs no more words
      if (error instanceof SlackSendError && error.kind === "gone" && gone) {
        await fenced((inTx) => inTx.noticeShown(notice, shown, gone, clock.now()));
      }
    }
  };

  const notifier: RiskNotifier = {
    async sync(cluster, risks, readAt) {
      const notices = await store.notices(cluster.uid);
      const noticeOf = (channel: string, kind: RiskKind) =>
        notices.find((n) => n.channel === channel && n.kind === kind);
      const stored = new Map((await store.risksOf(cluster.uid)).map((r) => [r.risk.kind, r]));
      const channels = await channelsFor(cluster);
      for (const channel of channels) {
        for (const risk of risks) {
          const since = stored.get(risk.kind)?.since ?? clock.now();
          const notice = noticeOf(channel, risk.kind);
          // no notice yet, or one whose post never recorded its ts: the claim decides whether
          // it is time (a fresh claim is left alone, an old one is posted again)
          if (!notice || notice.ts === null) {
            await post(channel, cluster, risk, since, readAt);
            continue;
          }
          if (notice.gone) {
            // it holds again: a new notice, the old one stays as it was ("no longer holds")
            await fenced((inTx) => inTx.forgetNotice(notice));
            await post(channel, cluster, risk, since, readAt);
            continue;
          }
          const shown = riskFingerprint(risk);
          if (notice.shown === shown) continue;
          if (notice.rollup !== null) {
            // told in a roll-up: its line changes there
            const group = notice.rollup;
            await fenced(async (inTx) => {
              await inTx.noticeShown(notice, shown, false, clock.now());
              await inTx.rollupStale(channel, group, 0, clock.now());
            });
            continue;
          }
          const row = {
            clusterUid: cluster.uid,
            name: cluster.name,
            project: cluster.project,
            risk,
            since,
            ...(readAt !== undefined ? { readAt } : {}),
          };
          await edit(notice, riskNoticeText(row), riskNoticeBlocks(row), shown, false);
        }
      }
      const holding = new Set(risks.map((risk) => risk.kind));
      for (const notice of notices) {
        if (notice.gone || holding.has(notice.kind)) continue;
        // a post that never recorded its ts, of a risk gone meanwhile: nothing to edit
        if (notice.ts === null) {
          await fenced((inTx) => inTx.forgetNotice(notice));
          continue;
        }
        if (notice.rollup !== null) {
          // told in a roll-up: it leaves it, counted there as no longer holding
          const group = notice.rollup;
          await fenced(async (inTx) => {
            await inTx.forgetNotice(notice);
            await inTx.rollupStale(notice.channel, group, 1, clock.now());
          });
          continue;
        }
        await edit(
          notice,
          riskGoneText(cluster.name, notice.kind),
          riskGoneBlocks(
            { clusterUid: cluster.uid, kind: notice.kind, name: cluster.name },
            clock.now(),
          ),
          GONE,
          true,
        );
      }
    },
    async retryDue() {
      const now = clock.now();
      // notices due in channels no longer subscribed would fill the batch below for good; a
      // paused subscription (not_in_channel, for a while) still counts: its notices are kept
      const subscribed = await subscribedChannels();
      await fenced((inTx) => inTx.forgetDueOutside(subscribed));
      for (const uid of await store.noticesDue(now, now - NOTICE_RETRY_MS, RETRY_BATCH)) {
        const stored = await store.risksOf(uid);
        const cluster = (await store.cluster(uid)) ?? {
          uid,
          name: stored[0]?.name ?? uid,
          project: stored[0]?.project ?? "",
          tags: [],
        };
        await notifier.sync(
          cluster,
          stored.map((row) => row.risk),
          stored[0]?.readAt,
        );
      }
      await notifier.flush();
    },
    flush() {
      // one flush at a time: the sweep and a reconciliation's repave list may both flush, and
      // two at once could each post a roll-up of the same group
      const run = flushing.then(flushNow);
      flushing = run.catch(() => undefined);
      return run;
    },
  };

  /** posts what was claimed since the last flush, then edits the roll-ups behind */
  async function flushNow(): Promise<void> {
    const due = pending;
    pending = [];
    const open = new Map((await store.rollups()).map((r) => [rollupKey(r.channel, r.group), r.ts]));
    const plan = planNotices(due, new Set(open.keys()), ROLLUP_OVER);
    for (const rollUp of plan.rollUps) {
      const ts = open.get(rollupKey(rollUp.channel, rollUp.group));
      if (rollUp.open && ts !== undefined) {
        // joins the roll-up already in the channel: its message is edited, nothing posted
        const at = clock.now();
        const keys = rollUp.members.map((m) => ({
          channel: m.channel,
          clusterUid: m.cluster.uid,
          kind: m.risk.kind,
        }));
        await fenced(async (inTx) => {
          await inTx.joinRollup(keys, rollUp.group, ts, at);
          await inTx.rollupStale(rollUp.channel, rollUp.group, 0, at);
        });
      } else await postRollup(rollUp.channel, rollUp.group, rollUp.kind, rollUp.members);
    }
    for (const single of plan.singles) await postSingle(single);
    await editRollups();
  }
  return notifier;
}
