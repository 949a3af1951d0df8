import { isKnownUnhealthy } from "../model/cluster.ts";
import type { Subscription, SubscriptionKind } from "../model/subscription.ts";
import { matchesFilter } from "../model/subscription.ts";
import type { AuditOutcome } from "../store/audit.ts";
import { OutboxStore } from "../store/outbox.ts";
import { SnapshotStore } from "../store/snapshots.ts";
import { SubscriptionStore } from "../store/subscriptions.ts";
import { errorReply, messageReply, notice, usageReply } from "../verb-kit/reply.ts";
import type { CommandContext, MessageReply, VerbSpec } from "../verb-kit/types.ts";
import { escapeMrkdwn, mention } from "../views/mrkdwn.ts";

/**
 * `/palette subscribe|unsubscribe|subscriptions`: which notifications this channel gets. The
 * poll (src/notify/poll/poll.ts) reads the same table every cycle.
 */

const KINDS: readonly SubscriptionKind[] = ["clusters", "alerts", "all", "risks"];
const PROJECT_UID = /^[A-Za-z0-9_-]{1,64}$/;
const TAG = /^[A-Za-z0-9_.:/-]{1,128}$/;

const KIND_TEXT: Record<SubscriptionKind, string> = {
  clusters: "cluster state and health changes",
  alerts: "alerts raised and resolved",
  all: "cluster changes and alerts",
  risks: "the radar's risks (certificates, pending repaves, backups, newer profile versions)",
  // not in KINDS yet: `subscribe edge` is offered once the poll posts edge notices (issue 39)
  edge: "edge hosts going dark, unpaired and back, a site's hosts in one message",
};

function describe(kind: SubscriptionKind, project?: string, tag?: string): string {
  const scope = [
    project ? `in project \`${escapeMrkdwn(project)}\`` : "in every watched project",
    tag ? `tagged \`${escapeMrkdwn(tag)}\`` : undefined,
  ]
    .filter(Boolean)
    .join(", ");
  return `${KIND_TEXT[kind]} ${scope}`;
}

/**
 * What the new subscription covers as of the poller's last look, so a channel that subscribes
 * after the first poll (which announced the fleet to the channels subscribed then) is not left
 * guessing. Nothing when the poller has not looked yet: its first poll posts the summary.
 */
async function watchedNow(ctx: CommandContext, subscription: Subscription): Promise<string> {
  // counted a batch at a time: at fleet scale the whole snapshot is tens of MB
  let covered = 0;
  let unhealthy = 0;
  const firstUnhealthy: string[] = [];
  await new SnapshotStore(ctx.db).forEach((cluster) => {
    if (!matchesFilter(subscription, cluster)) return;
    covered += 1;
    if (!isKnownUnhealthy(cluster.health)) return;
    unhealthy += 1;
    if (firstUnhealthy.length < 5) firstUnhealthy.push(cluster.name);
  });
  if (covered === 0) return "";
  const names = firstUnhealthy.map((name) => `*${escapeMrkdwn(name)}*`).join(", ");
  const more = unhealthy > 5 ? ` and ${unhealthy - 5} more` : "";
  return unhealthy === 0
    ? `\nIt covers ${covered} clusters right now, all healthy.`
    : `\nIt covers ${covered} clusters right now; not healthy: ${names}${more}.`;
}

/**
 * ALLOW_SUBSCRIBE decides who may change what a channel hears; every change, and every refusal,
 * leaves an audit record and a log line, because a silenced channel is how alerts get missed.
 */
async function refusedToChange(
  ctx: CommandContext,
  action: "subscribe" | "unsubscribe",
): Promise<MessageReply | undefined> {
  if (await ctx.policy.allows(ctx.requester.userId, "subscribe")) return undefined;
  await trail(ctx, action, ctx.requester.channelId, "denied");
  return errorReply(
    "You may not change this channel's subscriptions.",
    "You may not change this channel's subscriptions.",
    escapeMrkdwn(ctx.policy.grantHint("subscribe")),
  );
}

async function trail(
  ctx: CommandContext,
  action: "subscribe" | "unsubscribe",
  target: string,
  outcome: AuditOutcome,
  detail?: Record<string, unknown>,
): Promise<void> {
  await ctx.audit.record({
    userId: ctx.requester.userId,
    action,
    target,
    outcome,
    detail: detail ? JSON.stringify(detail) : undefined,
  });
  ctx.logger.info(
    { userId: ctx.requester.userId, channel: ctx.requester.channelId, action, outcome, ...detail },
    `subscription change ${outcome}`,
  );
}

async function notMember(ctx: CommandContext): Promise<MessageReply | undefined> {
  if (!ctx.channelProbe) return undefined;
  let member: boolean | undefined;
  try {
    member = await ctx.channelProbe.isMember(ctx.requester.channelId);
  } catch {
    member = undefined;
  }
  if (member !== false) return undefined;
  return errorReply(
    "I am not in this channel, so I could not post notifications here.",
    "I am not in this channel. Invite me: /invite @palette",
    "Invite me with `/invite @palette`, then run `/palette subscribe` again.",
  );
}

const notifications = (n: number) => `${n} notification${n === 1 ? "" : "s"}`;

/**
 * The bot may post here again (the membership probe did not say otherwise): the channel's paused
 * subscriptions resume, and the messages held while it was closed go out, in their old order.
 */
async function reopenChannel(
  ctx: CommandContext,
  channel: string,
): Promise<{ resumed: number; held: number }> {
  const reopened = await ctx.db.transaction(async (tx) => ({
    resumed: await new SubscriptionStore(tx, ctx.clock).resumeChannel(channel),
    held: await new OutboxStore(tx).requeue(channel, { heldOnly: true }),
  }));
  if (reopened.resumed + reopened.held > 0) {
    ctx.logger.info(
      { channel, ...reopened },
      "channel reopened: subscriptions resumed, held re-queued",
    );
  }
  return reopened;
}

function reopenedNote(reopened: { resumed: number; held: number }, resumedHere: boolean): string {
  const others = reopened.resumed - (resumedHere ? 1 : 0);
  return [
    others > 0
      ? ` Also resumed ${others} other paused subscription${others === 1 ? "" : "s"} here.`
      : "",
    reopened.held > 0
      ? ` ${reopened.held} held notification${reopened.held === 1 ? "" : "s"} (kept while I could not post here) go out now, oldest first.`
      : "",
  ].join("");
}

export const subscribeVerb: VerbSpec = {
  name: "subscribe",
  usage: "subscribe [clusters|alerts|all|risks] [project:<uid>] [tag:<t>]",
  summary: "this channel gets notifications",
  examples: [
    "/palette subscribe",
    "/palette subscribe alerts",
    "/palette subscribe clusters tag:env:prod",
    "/palette subscribe risks project:<uid>",
  ],
  run: async (command, ctx) => {
    if (command.args.length > 1) {
      return usageReply(subscribeVerb, "Give at most one kind: clusters, alerts, all or risks.");
    }
    const kindWord = (command.args[0] ?? "all").toLowerCase();
    const kind = KINDS.find((k) => k === kindWord);
    if (!kind) {
      return usageReply(
        subscribeVerb,
        `Unknown kind "${kindWord}": use clusters, alerts, all or risks.`,
      );
    }
    if (command.tags.length > 1) {
      return usageReply(subscribeVerb, "One `tag:` per subscription; subscribe again for another.");
    }
    const tag = command.tags[0];
    if (tag !== undefined && !TAG.test(tag)) {
      return usageReply(subscribeVerb, "A tag is letters, digits and `-_.:/`, at most 128.");
    }
    const project = command.project;
    // a project outside PALETTE_PROJECTS never gets here: dispatch refuses it for every verb
    if (project !== undefined && !PROJECT_UID.test(project)) {
      return usageReply(subscribeVerb, "`project:` wants a project UID.");
    }
    const refusal = (await refusedToChange(ctx, "subscribe")) ?? (await notMember(ctx));
    if (refusal) return refusal;

    const store = new SubscriptionStore(ctx.db, ctx.clock);
    const channel = ctx.requester.channelId;
    const existing = await store.find(channel, kind, project, tag);
    const wasPaused = existing?.pausedReason !== undefined;
    const reopened = await reopenChannel(ctx, channel);
    if (existing && !wasPaused) {
      return messageReply(
        notice(
          `This channel already gets ${describe(kind, project, tag)} (subscription #${existing.id}).${reopenedNote(reopened, false)}`,
        ),
        `Already subscribed (#${existing.id}).`,
        reopened.resumed + reopened.held > 0 ? "in_channel" : "ephemeral",
      );
    }
    if (existing) {
      await trail(ctx, "subscribe", channel, "granted", {
        subscription: existing.id,
        resumed: true,
      });
      return messageReply(
        notice(
          `:arrow_forward: Resumed subscription #${existing.id}: ${describe(kind, project, tag)}.${reopenedNote(reopened, true)}`,
        ),
        `Resumed subscription #${existing.id}.`,
        "in_channel",
      );
    }
    const sub = await store.add({ channel, kind, project, tag, createdBy: ctx.requester.userId });
    await trail(ctx, "subscribe", channel, "created", { subscription: sub.id, kind });
    return messageReply(
      notice(
        `:bell: Subscribed (#${sub.id}): this channel gets ${describe(kind, project, tag)}.${reopenedNote(reopened, false)}${await watchedNow(ctx, sub)}`,
        "Each change is posted once; a cluster's later changes edit its card and add a line to its thread. `/palette unsubscribe` stops them.",
      ),
      `Subscribed (#${sub.id}).`,
      "in_channel",
    );
  },
};

export const unsubscribeVerb: VerbSpec = {
  name: "unsubscribe",
  usage: "unsubscribe [id|all]",
  summary: "stop notifications in this channel",
  examples: ["/palette unsubscribe 3", "/palette unsubscribe all"],
  run: async (command, ctx) => {
    const store = new SubscriptionStore(ctx.db, ctx.clock);
    const channel = ctx.requester.channelId;
    const subs = await store.forChannel(channel);
    if (command.args.length > 1 || command.tags.length > 0 || command.project) {
      return usageReply(unsubscribeVerb, "Give one subscription id, or `all`.");
    }
    const arg = command.args[0]?.replace(/^#/, "").toLowerCase();
    const refusal = await refusedToChange(ctx, "unsubscribe");
    if (refusal) return refusal;
    if (subs.length === 0) {
      return messageReply(
        notice("This channel has no subscriptions.", "`/palette subscribe` adds one."),
        "This channel has no subscriptions.",
      );
    }
    if (arg === "all" || (arg === undefined && subs.length === 1)) {
      await store.removeAll(channel);
      await trail(ctx, "unsubscribe", channel, "removed", {
        subscriptions: subs.map((sub) => sub.id),
      });
      return removedReply(ctx, subs);
    }
    if (arg === undefined) {
      return messageReply(
        {
          screen: "subscriptions",
          data: {
            subscriptions: subs,
            preface: "This channel has several subscriptions: name one by id, or `all`.",
          },
        },
        "Name a subscription id, or all.",
      );
    }
    const id = Number(arg);
    if (!Number.isInteger(id) || id <= 0) {
      return usageReply(unsubscribeVerb, `"${arg}" is not a subscription id.`);
    }
    const target = subs.find((sub) => sub.id === id);
    if (!target || !(await store.remove(channel, id))) {
      return errorReply(
        `This channel has no subscription #${id}.`,
        `No subscription #${id} here.`,
        "`/palette subscriptions` lists them.",
      );
    }
    await trail(ctx, "unsubscribe", channel, "removed", { subscriptions: [id] });
    return removedReply(ctx, [target]);
  },
};

/** Said in the channel, naming who did it: nobody should wonder why the alerts went quiet. */
function removedReply(ctx: CommandContext, removed: readonly Subscription[]): MessageReply {
  const who = mention(ctx.requester.userId);
  const lines = removed.map((sub) => `#${sub.id}: ${describe(sub.kind, sub.project, sub.tag)}`);
  const count = `${removed.length} subscription${removed.length === 1 ? "" : "s"}`;
  return messageReply(
    notice(
      `:no_bell: ${who} removed ${count} of this channel:\n${lines.join("\n")}`,
      "`/palette subscribe` adds one back.",
    ),
    `Removed ${count}.`,
    "in_channel",
  );
}

/** `subscriptions retry`: the channel's dead letters and held messages, pending again. */
async function retryUndelivered(ctx: CommandContext): Promise<MessageReply> {
  const refusal = await notMember(ctx);
  if (refusal) return refusal;
  const channel = ctx.requester.channelId;
  const requeued = await new OutboxStore(ctx.db).requeue(channel);
  if (requeued === 0) {
    return messageReply(
      notice(
        "Nothing to re-send here: every notification for this channel went out or is on its way.",
      ),
      "Nothing to re-send here.",
    );
  }
  ctx.logger.info({ channel, requeued }, "undelivered notifications re-queued");
  return messageReply(
    notice(
      `:repeat: Re-queued ${notifications(requeued)} for this channel: they go out oldest first, before newer ones.`,
      "If Slack refuses one again, `/palette subscriptions` says why.",
    ),
    `Re-queued ${notifications(requeued)}.`,
    "in_channel",
  );
}

export const subscriptionsVerb: VerbSpec = {
  name: "subscriptions",
  usage: "subscriptions [retry]",
  summary:
    "list this channel's subscriptions and what could not be delivered; `retry` sends that again",
  examples: ["/palette subscriptions", "/palette subscriptions retry"],
  run: async (command, ctx) => {
    const arg = command.args[0]?.toLowerCase();
    if (command.args.length > 1 || (arg !== undefined && arg !== "retry")) {
      return usageReply(subscriptionsVerb, "The only word `subscriptions` takes is `retry`.");
    }
    if (arg === "retry") return retryUndelivered(ctx);
    const channel = ctx.requester.channelId;
    const subs = await new SubscriptionStore(ctx.db, ctx.clock).forChannel(channel);
    const undelivered = await new OutboxStore(ctx.db).undelivered(channel);
    if (subs.length === 0 && undelivered.length === 0) {
      return messageReply(
        notice("This channel has no subscriptions.", "`/palette subscribe` adds one."),
        "This channel has no subscriptions.",
      );
    }
    return messageReply(
      { screen: "subscriptions", data: { subscriptions: subs, undelivered } },
      `${subs.length} subscriptions.`,
    );
  },
};

export const subscribeVerbs: VerbSpec[] = [subscribeVerb, unsubscribeVerb, subscriptionsVerb];
