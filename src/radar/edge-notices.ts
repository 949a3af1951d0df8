import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { EdgeRisk, EdgeRiskKind } from "../model/edge-risk.ts";
import { matchesFilter } from "../model/subscription.ts";
import { ChannelPacing } from "../notify/delivery/channel-pacing.ts";
import { createPostOnce } from "../notify/delivery/post-once.ts";
import { type SlackPoster, SlackSendError } from "../notify/delivery/slack-port.ts";
import { EdgeHostStore } from "../store/edge-hosts.ts";
import { type EdgeNotice, EdgeRadarNoticeStore } from "../store/edge-radar-notices.ts";
import { FencedOut } from "../store/lease.ts";
import { RadarStore } from "../store/radar.ts";
import type { SqlDb, SqlExecutor } from "../store/sql.ts";
import { SubscriptionStore } from "../store/subscriptions.ts";
import {
  edgeRiskGoneBlocks,
  edgeRiskGoneText,
  edgeRiskNoticeBlocks,
  edgeRiskNoticeText,
} from "../views/edge-risk.ts";
import { NOTICE_BURST, NOTICE_GAP_MS, NOTICE_RETRY_MS } from "./notices.ts";

/**
 * Tells the `risks` channels about the radar's edge risks (issue 39, item 5): a notice the
 * first time a risk holds (claimed in the store, then posted through post-once, so two passes or
 * a pass after a kill never post it twice), the same message edited as it changes, and "no longer
 * holds" once a read finds it gone. A kind whose read failed (`settled` lacks it: Palette's 500
 * on the tokens) ends nothing: a risk not read is not a risk gone.
 *
 * A notice's channel is chosen as a cluster notice's is (`risks project:<uid> tag:<k:v>`): the
 * project is the subject's (a token's default project, a host's, a cluster's), the tags a host's
 * or a cluster's as the bot last read them; a token has none, so a tag-narrowed channel hears no
 * token. Every write runs in a transaction the lease fences, and the fence is checked again right
 * before each post or edit.
 */
export interface EdgeRiskNotifier {
  sync(risks: readonly EdgeRisk[], settled: ReadonlySet<EdgeRiskKind>): Promise<void>;
}

type Key = Pick<EdgeNotice, "channel" | "subjectKind" | "subjectUid" | "kind">;
const keyOf = (key: Key): string =>
  `${key.channel}\u0000${key.subjectKind}\u0000${key.subjectUid}\u0000${key.kind}`;
const riskKeyOf = (risk: Pick<EdgeNotice, "subjectKind" | "subjectUid" | "kind">): string =>
  `${risk.subjectKind}\u0000${risk.subjectUid}\u0000${risk.kind}`;

/** what a notice shows: a change of any of these edits it */
const fingerprint = (risk: EdgeRisk): string =>
  JSON.stringify([risk.severity, risk.subject.name, risk.summary, risk.at ?? null]);

/** Slack surely did not post: the claim is given back so the next pass tries again. */
const surelyNotPosted = (error: unknown): boolean =>
  error instanceof SlackSendError && error.kind !== "transient";

export function createEdgeRiskNotifier(deps: {
  db: SqlDb;
  slack: SlackPoster;
  clock: Clock;
  logger: Logger;
  /** waits for a channel's pace; default setTimeout */
  sleep?: (ms: number) => Promise<void>;
  /** throws FencedOut when this replica no longer leads (src/store/lease.ts) */
  fence?: (tx: SqlExecutor) => Promise<void>;
}): EdgeRiskNotifier {
  const { db, slack, clock, logger } = deps;
  const sleep =
    deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const store = new EdgeRadarNoticeStore(db);
  const subscriptions = new SubscriptionStore(db, clock);
  const pacing = new ChannelPacing(NOTICE_GAP_MS, NOTICE_BURST);
  const once = createPostOnce({ db, slack, logger });
  const postKey = (key: Key) =>
    `edge-radar-notice:${key.channel}:${key.subjectKind}:${key.subjectUid}:${key.kind}`;

  const fenced = <T>(work: (inTx: EdgeRadarNoticeStore, tx: SqlExecutor) => Promise<T>) =>
    db.transaction(async (tx) => {
      await deps.fence?.(tx);
      return work(new EdgeRadarNoticeStore(tx), tx);
    });

  const paced = async (channel: string): Promise<void> => {
    const wait = pacing.readyAt(channel) - clock.now();
    if (wait > 0) await sleep(wait);
    pacing.sent(channel, clock.now());
  };

  /** the tags a channel's `tag:` narrows on: a host's or a cluster's, as last read */
  const tagsOf = async (risks: readonly EdgeRisk[]): Promise<Map<string, string[]>> => {
    const tags = new Map<string, string[]>();
    const hosts = risks.filter((r) => r.subject.kind === "host").map((r) => r.subject.uid);
    for (const [uid, record] of await new EdgeHostStore(db).get(hosts)) tags.set(uid, record.tags);
    const radar = new RadarStore(db);
    for (const risk of risks) {
      if (risk.subject.kind !== "cluster" || tags.has(risk.subject.uid)) continue;
      tags.set(risk.subject.uid, (await radar.cluster(risk.subject.uid))?.tags ?? []);
    }
    return tags;
  };

  const post = async (key: Key, risk: EdgeRisk): Promise<void> => {
    const now = clock.now();
    const claimed = await fenced((inTx) =>
      inTx.claim(key, risk.subject.name, fingerprint(risk), now, now - NOTICE_RETRY_MS),
    );
    if (!claimed) return;
    try {
      await paced(key.channel);
      const marker = postKey(key);
      const { ts } = await once.post(marker, {
        channel: key.channel,
        text: edgeRiskNoticeText(risk),
        blocks: edgeRiskNoticeBlocks(risk),
      });
      await fenced(async (inTx, tx) => {
        await inTx.posted(key, ts, clock.now());
        await once.settled(tx, marker);
      });
    } catch (error) {
      if (error instanceof FencedOut) throw error;
      logger.warn(
        { channel: key.channel, subject: key.subjectUid, kind: key.kind, err: String(error) },
        "edge risk notice not posted",
      );
      if (error instanceof SlackSendError && error.kind === "ratelimited") {
        pacing.slowDown(key.channel, clock.now() + (error.retryAfterMs ?? NOTICE_GAP_MS));
      }
      // a time-out keeps its claim: post-once finds the message, or posts it, after NOTICE_RETRY_MS
      if (surelyNotPosted(error)) await fenced((inTx) => inTx.forget(key));
    }
  };

  const edit = async (
    notice: EdgeNotice,
    message: { text: string; blocks: ReturnType<typeof edgeRiskNoticeBlocks> },
    after: (inTx: EdgeRadarNoticeStore) => Promise<void>,
  ): Promise<void> => {
    if (!notice.ts) return;
    try {
      await paced(notice.channel);
      await fenced(async () => undefined);
      await slack.update({ channel: notice.channel, ts: notice.ts, ...message });
      await fenced(after);
    } catch (error) {
      if (error instanceof FencedOut) throw error;
      logger.warn(
        {
          channel: notice.channel,
          subject: notice.subjectUid,
          kind: notice.kind,
          err: String(error),
        },
        "edge risk notice not edited",
      );
      if (error instanceof SlackSendError && error.kind === "ratelimited") {
        pacing.slowDown(notice.channel, clock.now() + (error.retryAfterMs ?? NOTICE_GAP_MS));
      }
      // the message is gone from Slack: nothing left to edit
      if (error instanceof SlackSendError && error.kind === "gone") {
        await fenced((inTx) => inTx.forget(notice));
      }
    }
  };

  return {
    async sync(risks, settled) {
      const subs = (await subscriptions.all()).filter(
        (sub) => sub.kind === "risks" && !sub.pausedReason,
      );
      const notices = new Map((await store.all()).map((notice) => [keyOf(notice), notice]));
      const tags = await tagsOf(risks);
      const wanted = new Set<string>();
      const holding = new Set<string>();
      for (const risk of risks) {
        const subject = risk.subject;
        holding.add(
          riskKeyOf({ subjectKind: subject.kind, subjectUid: subject.uid, kind: risk.kind }),
        );
        const target = { project: subject.projectUid ?? "", tags: tags.get(subject.uid) ?? [] };
        for (const sub of subs) {
          if (!matchesFilter(sub, target)) continue;
          const key: Key = {
            channel: sub.channel,
            subjectKind: subject.kind,
            subjectUid: subject.uid,
            kind: risk.kind,
          };
          if (wanted.has(keyOf(key))) continue;
          wanted.add(keyOf(key));
          const notice = notices.get(keyOf(key));
          if (!notice || notice.ts === null) {
            await post(key, risk);
          } else if (notice.shown !== fingerprint(risk)) {
            await edit(
              notice,
              { text: edgeRiskNoticeText(risk), blocks: edgeRiskNoticeBlocks(risk) },
              (inTx) => inTx.shown(key, fingerprint(risk), subject.name, clock.now()),
            );
          }
        }
      }
      for (const notice of notices.values()) {
        if (wanted.has(keyOf(notice))) continue;
        if (holding.has(riskKeyOf(notice))) {
          // still a risk, no longer this channel's (unsubscribed, narrowed): dropped silently
          await fenced((inTx) => inTx.forget(notice));
          continue;
        }
        // not read this time (its read failed): not ended
        if (!settled.has(notice.kind)) continue;
        if (notice.ts === null) {
          if (notice.updatedAt <= clock.now() - NOTICE_RETRY_MS) {
            await fenced((inTx) => inTx.forget(notice));
          }
          continue;
        }
        const at = clock.now();
        await edit(
          notice,
          {
            text: edgeRiskGoneText(notice.name, notice.kind),
            blocks: edgeRiskGoneBlocks(notice, at),
          },
          (inTx) => inTx.forget(notice),
        );
      }
    },
  };
}
