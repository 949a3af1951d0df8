import { z } from "zod";
import type { DigestCadence, DigestSchedule } from "../model/channel-digest.ts";
import { canonicalTimeZone, formatWall } from "../model/wall-clock.ts";
import { composeChannelDigest } from "../notify/digest/channel-digest-source.ts";
import { nextOccurrence } from "../notify/digest/digest-due.ts";
import type { AuditAction, AuditOutcome } from "../store/audit.ts";
import { DigestStore } from "../store/digests.ts";
import { SubscriptionStore } from "../store/subscriptions.ts";
import { errorReply, messageReply, notice, usageReply } from "../verb-kit/reply.ts";
import type { CommandContext, MessageReply, VerbSpec } from "../verb-kit/types.ts";
import { channelDigestText } from "../views/channel-digest.ts";
import { escapeMrkdwn, mention } from "../views/mrkdwn.ts";

/**
 * `/palette digest daily 09:00 [zone] | weekly mon 09:00 [zone] | off | now`, and alone: this
 * channel's scheduled digest. Setting and turning it off follow ALLOW_SUBSCRIBE (it decides what
 * the channel hears), each audited; showing it and the private preview are open to everyone.
 * The running bot's scheduler (src/notify/digest/channel-digest-job.ts) posts it.
 */

const WEEKDAYS = [
  "sunday",
  "monday",
  "tuesday",
  "wednesday",
  "thursday",
  "friday",
  "saturday",
] as const;

const weekdayName = (day: number) => {
  const name = WEEKDAYS[day] ?? "monday";
  return `${name[0]!.toUpperCase()}${name.slice(1)}`;
};

const timeOfDay = z
  .string({ message: "Give the time of day, e.g. `09:00`." })
  .regex(/^([01]?\d|2[0-3]):([0-5]\d)$/, {
    message: "The time is HH:MM on a 24-hour clock, e.g. `09:00` or `17:30`.",
  })
  .transform((text) => {
    const [hour, minute] = text.split(":").map(Number);
    return { hour: hour!, minute: minute! };
  });

const weekday = z
  .string({ message: "A weekly digest needs a weekday, e.g. `weekly mon 09:00`." })
  .transform((text) => text.toLowerCase())
  .refine((text) => text.length >= 3 && WEEKDAYS.some((day) => day.startsWith(text)), {
    message: "The weekday is one of mon, tue, wed, thu, fri, sat, sun.",
  })
  .transform((text) => WEEKDAYS.findIndex((day) => day.startsWith(text)));

const timeZone = z
  .string()
  .optional()
  .transform((text, ctx) => {
    if (text === undefined) return { timeZone: "UTC", zoneGiven: false };
    const canonical = canonicalTimeZone(text);
    if (!canonical) {
      ctx.addIssue({
        code: "custom",
        message: `"${text.slice(0, 64)}" is not a time zone I know: give an IANA name, e.g. Europe/Berlin, America/New_York or UTC.`,
      });
      return z.NEVER;
    }
    return { timeZone: canonical, zoneGiven: true };
  });

export type DigestRequest =
  | { kind: "show" }
  | { kind: "now" }
  | { kind: "off" }
  | {
      kind: "set";
      cadence: DigestCadence;
      weekday?: number;
      hour: number;
      minute: number;
      timeZone: string;
      /** false: no zone was typed, UTC was taken (the answer says so) */
      zoneGiven: boolean;
    }
  | { kind: "bad"; problem: string };

const firstIssue = (error: z.ZodError) => error.issues[0]?.message ?? "That is not a schedule.";

/** The words after `digest` → what is asked. Total: anything else is a problem to tell. */
export function parseDigestArgs(args: readonly string[]): DigestRequest {
  const [first, ...rest] = args.map((arg) => arg.trim());
  const word = first?.toLowerCase();
  if (word === undefined) return { kind: "show" };
  if (word === "now" || word === "off") {
    return rest.length > 0
      ? { kind: "bad", problem: `Too many words: \`digest ${word}\` takes nothing after it.` }
      : { kind: word };
  }
  if (word !== "daily" && word !== "weekly") {
    return {
      kind: "bad",
      problem: `Unknown digest "${word.slice(0, 40)}": use daily, weekly, off or now.`,
    };
  }
  const parts = word === "weekly" ? rest : [undefined, ...rest];
  if (parts.length > 3) {
    return { kind: "bad", problem: "Too many words: the time zone is the last one." };
  }
  if (word === "weekly" && parts.length > 0 && timeOfDay.safeParse(parts[0]).success) {
    return {
      kind: "bad",
      problem: "A weekly digest needs a weekday first, e.g. `weekly mon 09:00`.",
    };
  }
  const schema = z.tuple([word === "weekly" ? weekday : z.undefined(), timeOfDay, timeZone]);
  const parsed = schema.safeParse([parts[0], parts[1], parts[2]]);
  if (!parsed.success) return { kind: "bad", problem: firstIssue(parsed.error) };
  const [day, time, zone] = parsed.data;
  return {
    kind: "set",
    cadence: word,
    ...(word === "weekly" ? { weekday: day as number } : {}),
    ...time,
    ...zone,
  };
}

const two = (n: number) => String(n).padStart(2, "0");

function describeSchedule(schedule: Omit<DigestSchedule, "channel" | "setBy" | "setAt">): string {
  const time = `${two(schedule.hour)}:${two(schedule.minute)}`;
  const when =
    schedule.cadence === "weekly"
      ? `weekly on ${weekdayName(schedule.weekday ?? 1)} at ${time}`
      : `daily at ${time}`;
  return `${when} (${escapeMrkdwn(schedule.timeZone)})`;
}

function nextLine(schedule: DigestSchedule, now: number): string {
  const next = nextOccurrence(schedule, now);
  return next === undefined
    ? ""
    : `Next: ${formatWall(next, schedule.timeZone)} (${escapeMrkdwn(schedule.timeZone)}).`;
}

async function trail(
  ctx: CommandContext,
  action: Extract<AuditAction, "digest-set" | "digest-off">,
  outcome: AuditOutcome,
  detail?: Record<string, unknown>,
): Promise<void> {
  const channel = ctx.requester.channelId;
  await ctx.audit.record({
    userId: ctx.requester.userId,
    action,
    target: channel,
    outcome,
    detail: detail ? JSON.stringify(detail) : undefined,
  });
  ctx.logger.info(
    { userId: ctx.requester.userId, channel, action, outcome, ...detail },
    `digest change ${outcome}`,
  );
}

async function refused(
  ctx: CommandContext,
  action: "digest-set" | "digest-off",
): Promise<MessageReply | undefined> {
  if (await ctx.policy.allows(ctx.requester.userId, "subscribe")) return undefined;
  await trail(ctx, action, "denied");
  return errorReply(
    "You may not change this channel's digest.",
    "You may not change this channel's digest.",
    escapeMrkdwn(ctx.policy.grantHint("subscribe")),
  );
}

const USAGE = "digest [daily HH:MM [zone] | weekly <day> HH:MM [zone] | off | now]";

async function hasSubscriptions(ctx: CommandContext): Promise<boolean> {
  const subs = await new SubscriptionStore(ctx.db, ctx.clock).forChannel(ctx.requester.channelId);
  return subs.filter((sub) => !sub.pausedReason).length > 0;
}

async function setDigest(
  ctx: CommandContext,
  request: Extract<DigestRequest, { kind: "set" }>,
): Promise<MessageReply> {
  const refusal = await refused(ctx, "digest-set");
  if (refusal) return refusal;
  const now = ctx.clock.now();
  const schedule: DigestSchedule = {
    channel: ctx.requester.channelId,
    cadence: request.cadence,
    ...(request.weekday === undefined ? {} : { weekday: request.weekday }),
    hour: request.hour,
    minute: request.minute,
    timeZone: request.timeZone,
    setBy: ctx.requester.userId,
    setAt: new Date(now).toISOString(),
  };
  // read and replaced in one transaction: "was …" names exactly what this replaced
  const replaced = await ctx.db.transaction((tx) => new DigestStore(tx).set(schedule));
  await trail(ctx, "digest-set", "created", {
    cadence: schedule.cadence,
    weekday: schedule.weekday,
    time: `${two(schedule.hour)}:${two(schedule.minute)}`,
    timeZone: schedule.timeZone,
    replaced: replaced !== undefined,
  });
  await ctx.onDigestChange?.();
  const hints = [
    request.zoneGiven
      ? ""
      : "No time zone given, so UTC; add one to change that, e.g. `/palette digest daily 09:00 Europe/Berlin`.",
    (await hasSubscriptions(ctx))
      ? "It sums up what this channel's subscriptions cover. `/palette digest now` previews it; `/palette digest off` stops it."
      : "This channel has no subscriptions yet, so there is nothing to sum up: `/palette subscribe` adds one.",
  ].filter(Boolean);
  return messageReply(
    notice(
      `:newspaper: ${mention(ctx.requester.userId)} set this channel's digest: ${describeSchedule(schedule)}${
        replaced ? ` (was ${describeSchedule(replaced)})` : ""
      }. ${nextLine(schedule, now)}`,
      hints.join(" "),
    ),
    `Digest set: ${schedule.cadence} at ${two(schedule.hour)}:${two(schedule.minute)} ${schedule.timeZone}.`,
    "in_channel",
  );
}

async function turnOff(ctx: CommandContext): Promise<MessageReply> {
  const refusal = await refused(ctx, "digest-off");
  if (refusal) return refusal;
  const removed = await ctx.db.transaction((tx) =>
    new DigestStore(tx).remove(ctx.requester.channelId),
  );
  if (!removed) {
    await trail(ctx, "digest-off", "rejected", { reason: "no digest" });
    return messageReply(
      notice(
        "This channel has no digest.",
        "`/palette digest daily 09:00 Europe/Berlin` sets one.",
      ),
      "This channel has no digest.",
    );
  }
  await trail(ctx, "digest-off", "removed", {
    cadence: removed.cadence,
    timeZone: removed.timeZone,
  });
  await ctx.onDigestChange?.();
  return messageReply(
    notice(
      `:no_entry_sign: ${mention(ctx.requester.userId)} turned off this channel's ${removed.cadence} digest (${describeSchedule(removed)}).`,
      "`/palette digest daily 09:00` sets one again.",
    ),
    `Digest turned off.`,
    "in_channel",
  );
}

async function show(ctx: CommandContext): Promise<MessageReply> {
  const store = new DigestStore(ctx.db);
  const schedule = await store.get(ctx.requester.channelId);
  if (!schedule) {
    return messageReply(
      notice(
        "This channel has no digest.",
        "`/palette digest daily 09:00 Europe/Berlin` or `/palette digest weekly mon 09:00` sets one; `/palette digest now` previews it.",
      ),
      "This channel has no digest.",
    );
  }
  const last = await store.lastRun(schedule.channel);
  const lastText = last
    ? `Last digest: for ${formatWall(Date.parse(last.occurrence), schedule.timeZone)}.`
    : "Last digest: not sent yet.";
  const setAt = formatWall(Date.parse(schedule.setAt), schedule.timeZone);
  return messageReply(
    notice(
      `:newspaper: This channel's digest: ${describeSchedule(schedule)}, set by ${mention(schedule.setBy)} on ${setAt}. ${nextLine(schedule, ctx.clock.now())} ${lastText}`,
      "`/palette digest now` previews it; `/palette digest off` stops it.",
    ),
    `Digest: ${schedule.cadence} at ${two(schedule.hour)}:${two(schedule.minute)} ${schedule.timeZone}.`,
  );
}

async function preview(ctx: CommandContext): Promise<MessageReply> {
  const channel = ctx.requester.channelId;
  const schedule = await new DigestStore(ctx.db).get(channel);
  const digest = await composeChannelDigest(ctx.db, {
    channel,
    schedule,
    now: ctx.clock.now(),
    preview: true,
  });
  if (!digest) {
    return messageReply(
      notice(
        "This channel has no subscriptions, so its digest would be empty.",
        "`/palette subscribe` adds one.",
      ),
      "This channel has no subscriptions.",
    );
  }
  return messageReply({ screen: "channelDigest", data: digest }, channelDigestText(digest));
}

export const digestVerb: VerbSpec = {
  name: "digest",
  usage: USAGE,
  summary:
    "this channel's scheduled digest: set it daily or weekly, turn it off, or preview it privately",
  examples: [
    "/palette digest daily 09:00 Europe/Berlin",
    "/palette digest weekly mon 09:00",
    "/palette digest now",
    "/palette digest off",
  ],
  run: async (command, ctx) => {
    if (command.project !== undefined || command.tags.length > 0) {
      return usageReply(
        digestVerb,
        "The digest follows this channel's subscriptions; it takes no `project:` or `tag:`.",
      );
    }
    if (command.flags.size > 0) {
      return usageReply(digestVerb, "`digest` takes no --options.");
    }
    const request = parseDigestArgs(command.args);
    switch (request.kind) {
      case "bad":
        return usageReply(digestVerb, request.problem);
      case "show":
        return show(ctx);
      case "now":
        return preview(ctx);
      case "off":
        return turnOff(ctx);
      case "set":
        return setDigest(ctx, request);
    }
  },
};
