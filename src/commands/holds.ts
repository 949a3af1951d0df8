import type { Permission } from "../access/types.ts";
import { snoozeUntil } from "../model/hold-time.ts";
import type { CardPayload, HoldKind, SnoozeChoice } from "../model/notification.ts";
import { endHolds } from "../notify/oncall/holds.ts";
import type { AuditOutcome } from "../store/audit.ts";
import { CardStore } from "../store/cards.ts";
import { HoldStore } from "../store/holds.ts";
import { OutboxStore } from "../store/outbox.ts";
import { SnapshotStore } from "../store/snapshots.ts";
import { errorReply, messageReply, notice } from "../verb-kit/reply.ts";
import type { CommandContext, MessageReply } from "../verb-kit/types.ts";
import { bold, escapeMrkdwn, mention, slackDate } from "../views/mrkdwn.ts";

/**
 * Snooze and mute as use cases, shared by the card's buttons and modal (src/slack/listeners/)
 * and the `mute`, `unmute` and `mutes` verbs (src/commands/mute.ts, also in the console). Each
 * stores the hold, audits and logs it, tells the edge (`onHoldChange`) and answers in words.
 */

/** Snoozing (and Unsnooze) is on-call work, like acknowledging: ALLOW_ACK; muting is ALLOW_SUBSCRIBE. */
const PERMISSION: Record<HoldKind, Permission> = { snooze: "ack", mute: "subscribe" };

const allowed = (ctx: CommandContext, kind: HoldKind): Promise<boolean> =>
  ctx.policy.allows(ctx.requester.userId, PERMISSION[kind]);

/** The cluster of a card: who it is, for the hold's list entry. */
export interface HoldTarget {
  channel: string;
  clusterUid: string;
  clusterName: string;
  projectUid: string;
}

/**
 * The cluster a card's button names: its name and project as the card shows them (else as the
 * poller last saw it, else just the UID, which still holds correctly).
 */
export async function cardTarget(
  ctx: Pick<CommandContext, "db">,
  channel: string,
  clusterUid: string,
  projectHint?: string,
): Promise<HoldTarget> {
  const shown: CardPayload | undefined = (await new CardStore(ctx.db).get(channel, clusterUid))
    ?.payload;
  const cluster = shown?.cluster ?? (await new SnapshotStore(ctx.db).byUid(clusterUid));
  return {
    channel,
    clusterUid,
    clusterName: cluster?.name || clusterUid,
    projectUid: cluster?.project || projectHint || "",
  };
}

type HoldAction = "snooze" | "unsnooze" | "mute" | "unmute";

async function trail(
  ctx: CommandContext,
  action: HoldAction,
  target: Pick<HoldTarget, "channel" | "clusterName" | "clusterUid">,
  outcome: AuditOutcome,
  detail: Record<string, unknown> = {},
): Promise<void> {
  const full = { clusterUid: target.clusterUid, ...detail };
  await ctx.audit.record({
    userId: ctx.requester.userId,
    action,
    target: `${target.channel} ${target.clusterName}`.slice(0, 200),
    outcome,
    detail: JSON.stringify(full),
  });
  ctx.logger.info(
    { userId: ctx.requester.userId, channel: target.channel, action, outcome, ...full },
    `${action} ${outcome}`,
  );
}

/** The refusal for someone the policy does not let `action`, audited; undefined when allowed. */
export async function holdRefusal(
  ctx: CommandContext,
  action: HoldAction,
  target: Pick<HoldTarget, "channel" | "clusterName" | "clusterUid">,
): Promise<MessageReply | undefined> {
  const kind: HoldKind = action === "snooze" || action === "unsnooze" ? "snooze" : "mute";
  if (await allowed(ctx, kind)) return undefined;
  await trail(ctx, action, target, "denied");
  const what = kind === "snooze" ? `${action} cards` : `${action} clusters`;
  return errorReply(
    `You may not ${what} in this channel.`,
    `You may not ${what} in this channel.`,
    escapeMrkdwn(ctx.policy.grantHint(PERMISSION[kind])),
  );
}

async function tellEdge(ctx: CommandContext, channel: string, clusterUid: string, queued: boolean) {
  try {
    await ctx.onHoldChange?.({ channel, clusterUid, queued });
  } catch (error) {
    // the hold stands; the card catches up at its next change
    ctx.logger.warn({ err: String(error), channel }, "card not redrawn after a snooze or mute");
  }
}

const SNOOZE_WORDS: Record<SnoozeChoice, string> = {
  "1h": "for 1 hour",
  "4h": "for 4 hours",
  "24h": "for 24 hours",
  weekday: "until the next weekday 09:00",
};

/**
 * Snoozes the card's cluster in its channel. `zone` is the user's time zone for `weekday`
 * (`known: false`: Slack did not say, UTC was used, and the answer says so).
 */
export async function snoozeCluster(
  ctx: CommandContext,
  target: HoldTarget,
  choice: SnoozeChoice,
  zone: { name: string; known: boolean },
): Promise<MessageReply> {
  const refusal = await holdRefusal(ctx, "snooze", target);
  if (refusal) return refusal;
  const now = ctx.clock.now();
  const untilMs = snoozeUntil(choice, now, zone.name);
  await new HoldStore(ctx.db).put({
    ...target,
    kind: "snooze",
    userId: ctx.requester.userId,
    startedAt: now,
    untilMs,
  });
  await trail(ctx, "snooze", target, "created", { choice, untilMs, zone: zone.name });
  await tellEdge(ctx, target.channel, target.clusterUid, false);
  const where =
    choice !== "weekday"
      ? ""
      : zone.known
        ? ` in your time zone (${escapeMrkdwn(zone.name)})`
        : " UTC: Slack did not tell me your time zone";
  return messageReply(
    notice(
      `:sleeping: Snoozed ${bold(target.clusterName)} ${SNOOZE_WORDS[choice]}${where}: until ${slackDate(untilMs, "dateTime")}.`,
      "Its changes here are kept and said in one line when the snooze ends; Unsnooze on the card ends it now.",
    ),
    `Snoozed ${target.clusterName} until ${new Date(untilMs).toISOString()}.`,
  );
}

/** Mutes a cluster in a channel until `untilMs`; the channel is told who did it and why. */
export async function muteCluster(
  ctx: CommandContext,
  target: HoldTarget,
  untilMs: number,
  reason: string | undefined,
): Promise<MessageReply> {
  const refusal = await holdRefusal(ctx, "mute", target);
  if (refusal) return refusal;
  const now = ctx.clock.now();
  await new HoldStore(ctx.db).put({
    ...target,
    kind: "mute",
    userId: ctx.requester.userId,
    reason,
    startedAt: now,
    untilMs,
  });
  await trail(ctx, "mute", target, "created", { untilMs, reason });
  await tellEdge(ctx, target.channel, target.clusterUid, false);
  const why = reason ? `: ${escapeMrkdwn(reason)}` : "";
  return messageReply(
    notice(
      `:mute: ${mention(ctx.requester.userId)} muted ${bold(target.clusterName)} in this channel until ${slackDate(untilMs, "dateTime")}${why}`,
      `Its changes here are kept and said in one line when the mute ends; \`/palette unmute ${escapeMrkdwn(target.clusterName.replace(/`/g, "'"))}\` ends it now.`,
    ),
    `Muted ${target.clusterName} until ${new Date(untilMs).toISOString()}.`,
    "in_channel",
  );
}

const changesWord = (n: number) => `${n} change${n === 1 ? "" : "s"}`;

/**
 * Ends a hold now (Unsnooze, Unmute, `/palette unmute`), through the same path as a hold whose
 * time ran out: what was kept meanwhile is queued as one card row in the same transaction, and
 * the edge wakes the sender so it goes out at once (without an edge: with the next poll).
 */
export async function endHoldNow(
  ctx: CommandContext,
  target: HoldTarget,
  kind: HoldKind,
): Promise<MessageReply> {
  const action: HoldAction = kind === "snooze" ? "unsnooze" : "unmute";
  const refusal = await holdRefusal(ctx, action, target);
  if (refusal) return refusal;
  const now = ctx.clock.now();
  const at = new Date(now).toISOString();
  const result = await ctx.db.transaction(async (tx) => {
    // the hold may have ended meanwhile (its time, another click): read it in the write
    const current = await new HoldStore(tx).get(target.channel, target.clusterUid, kind);
    if (!current) return undefined;
    const ended = await endHolds(tx, [current], now, at, ctx.requester.userId);
    const outbox = new OutboxStore(tx);
    for (const draft of ended.drafts) await outbox.add(draft, at);
    return ended;
  });
  const hold = { ...target, kind };
  const noun = hold.kind === "snooze" ? "Snooze" : "Mute";
  const name = bold(hold.clusterName);
  if (!result) {
    await tellEdge(ctx, hold.channel, hold.clusterUid, false);
    return messageReply(
      notice(`${name} is not ${hold.kind}d here any more: its ${hold.kind} had already ended.`),
      `${hold.clusterName} is not ${hold.kind}d here any more.`,
    );
  }
  const queued = result.drafts[0]?.payload as CardPayload | undefined;
  await trail(ctx, action, hold, "removed", { queued: queued !== undefined });
  await tellEdge(ctx, hold.channel, hold.clusterUid, queued !== undefined);
  const other = (await new HoldStore(ctx.db).running(now, hold.channel)).find(
    (h) => h.clusterUid === hold.clusterUid,
  );
  const count = queued?.held ? queued.held.changes.length + queued.held.more : 0;
  const what = other
    ? ` It is still ${other.kind}d until ${slackDate(other.untilMs, "dateTime")}: what changed stays kept until then.`
    : count > 0
      ? ` ${changesWord(count)} kept meanwhile: one line in the card's thread says what happened.`
      : " Nothing changed meanwhile.";
  const icon = hold.kind === "snooze" ? ":alarm_clock:" : ":loud_sound:";
  return messageReply(
    notice(
      `${icon} ${mention(ctx.requester.userId)} ended the ${hold.kind} of ${name} in this channel.${what}`,
    ),
    `${noun} of ${hold.clusterName} ended.`,
    hold.kind === "mute" ? "in_channel" : "ephemeral",
  );
}

/** `/palette mutes`: the channel's running mutes and snoozes with who, why and until. */
export async function holdsList(ctx: CommandContext): Promise<MessageReply> {
  const channel = ctx.requester.channelId;
  const running = await new HoldStore(ctx.db).running(ctx.clock.now(), channel);
  if (running.length === 0) {
    return messageReply(
      notice(
        "No mutes or snoozes in this channel: every change here is posted.",
        "`/palette mute &lt;cluster&gt; [1d|7d|until YYYY-MM-DD] [reason…]` mutes one; Snooze is on each card.",
      ),
      "No mutes or snoozes in this channel.",
    );
  }
  const holds = running.map(({ kind, clusterName, userId, reason, untilMs }) => ({
    kind,
    clusterName,
    userId,
    reason,
    untilMs,
  }));
  return messageReply(
    { screen: "holdList", data: { holds } },
    `${running.length} mutes and snoozes in this channel.`,
  );
}
