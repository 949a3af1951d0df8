import { MAX_MUTE_DAYS, type MuteLength, muteUntil } from "../model/hold-time.ts";
import { HoldStore } from "../store/holds.ts";
import { errorReply, readScopes, usageReply } from "../verb-kit/reply.ts";
import { replayWith, resolveCluster } from "../verb-kit/resolve.ts";
import type { VerbSpec } from "../verb-kit/types.ts";
import { code } from "../views/mrkdwn.ts";
import { endHoldNow, holdRefusal, holdsList, muteCluster } from "./holds.ts";

/**
 * `/palette mute <cluster> [1d|7d|until YYYY-MM-DD] [reason…]`, `unmute <cluster>` and `mutes`:
 * a channel stops hearing one cluster for a while; what changed meanwhile is said in one line
 * when the mute ends (src/notify/oncall/holds.ts). The use cases live in src/commands/holds.ts.
 */

/** A reason longer than this is refused (the modal's field has the same limit). */
export const MAX_REASON = 200;

export type MuteArgs =
  | { ok: true; ref: string; length: MuteLength; reason?: string }
  | { ok: false; problem: string };

const DAYS = /^(\d{1,3})d$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** a word that looks like a length (`2h`, `3w`) but is not one we take: refused, not a reason */
const LENGTH_LIKE = /^\d+[a-z]{1,2}$/i;

/** The words after `mute`: the cluster, an optional length (default one day), then the reason. */
export function parseMuteArgs(args: readonly string[]): MuteArgs {
  const [ref, first, ...rest] = args;
  if (!ref) return { ok: false, problem: "Name the cluster to mute." };
  let length: MuteLength = { days: 1 };
  let reasonWords: readonly string[] = [first, ...rest].filter((w) => w !== undefined);
  const lengthHelp = `Give the length as 1d, 7d (up to ${MAX_MUTE_DAYS}d) or \`until YYYY-MM-DD\`.`;
  if (first !== undefined && first.toLowerCase() === "until") {
    const date = rest[0];
    if (!date || !DATE.test(date)) {
      return { ok: false, problem: "`until` wants a date, YYYY-MM-DD (e.g. `until 2026-12-01`)." };
    }
    length = { until: date };
    reasonWords = rest.slice(1);
  } else if (first !== undefined && LENGTH_LIKE.test(first)) {
    const days = DAYS.exec(first);
    const n = days ? Number(days[1]) : 0;
    if (n < 1 || n > MAX_MUTE_DAYS) return { ok: false, problem: lengthHelp };
    length = { days: n };
    reasonWords = rest;
  }
  const reason = reasonWords.join(" ").replace(/\s+/g, " ").trim();
  if (reason.length > MAX_REASON) {
    return { ok: false, problem: `A reason is at most ${MAX_REASON} characters.` };
  }
  return { ok: true, ref, length, ...(reason ? { reason } : {}) };
}

export const muteVerb: VerbSpec = {
  name: "mute",
  usage: "mute <cluster> [1d|7d|until YYYY-MM-DD] [reason…]",
  summary:
    "this channel stops hearing one cluster for a while (default 1 day); what changed is said in one line when the mute ends",
  examples: ["/palette mute billing-prod 7d kernel upgrades", "/palette mute web until 2026-12-01"],
  run: async (command, ctx) => {
    if (command.tags.length > 0) {
      return usageReply(muteVerb, "`mute` takes no `tag:`; put a reason with a colon in quotes.");
    }
    const parsed = parseMuteArgs(command.args);
    if (!parsed.ok) return usageReply(muteVerb, parsed.problem);
    const end = muteUntil(parsed.length, ctx.clock.now());
    if (!end.ok) return usageReply(muteVerb, end.problem);
    const channel = ctx.requester.channelId;
    // refused before any Palette call: a look-up is work, and the refusal is the answer anyway
    const refusal = await holdRefusal(ctx, "mute", {
      channel,
      clusterName: parsed.ref,
      clusterUid: "",
    });
    if (refusal) return refusal;
    const resolution = await resolveCluster(
      parsed.ref,
      readScopes(command, ctx),
      ctx,
      replayWith("mute", command.args.slice(1)),
    );
    if (resolution.kind === "reply") return resolution.reply;
    const { cluster } = resolution;
    return muteCluster(
      ctx,
      {
        channel,
        clusterUid: cluster.uid,
        clusterName: cluster.name,
        projectUid: cluster.projectUid ?? resolution.scope.projectUid ?? "",
      },
      end.untilMs,
      parsed.reason,
    );
  },
};

export const unmuteVerb: VerbSpec = {
  name: "unmute",
  usage: "unmute <cluster>",
  summary: "ends a mute in this channel now; what changed meanwhile is said in one line",
  examples: ["/palette unmute billing-prod"],
  run: async (command, ctx) => {
    const ref = command.args[0];
    if (!ref || command.args.length > 1 || command.tags.length > 0) {
      return usageReply(unmuteVerb, "Name one cluster (by name or UID) muted in this channel.");
    }
    const channel = ctx.requester.channelId;
    const refusal = await holdRefusal(ctx, "unmute", {
      channel,
      clusterName: ref,
      clusterUid: "",
    });
    if (refusal) return refusal;
    // the channel's own mutes, not Palette: a deleted or renamed cluster can still be unmuted
    const mutes = (await new HoldStore(ctx.db).list(channel)).filter(
      (hold) => hold.kind === "mute",
    );
    const exact = mutes.filter((hold) => hold.clusterUid === ref || hold.clusterName === ref);
    const matches =
      exact.length > 0
        ? exact
        : mutes.filter((hold) => hold.clusterName.toLowerCase() === ref.toLowerCase());
    if (matches.length === 0) {
      return errorReply(
        `${code(ref)} is not muted in this channel.`,
        `${ref} is not muted in this channel.`,
        "`/palette mutes` lists this channel's mutes.",
      );
    }
    if (matches.length > 1) {
      const uids = matches.map((hold) => code(hold.clusterUid)).join(", ");
      return errorReply(
        `${matches.length} muted clusters here are named ${code(ref)}: unmute one by its UID (${uids}).`,
        `Several muted clusters are named ${ref}; unmute by UID.`,
      );
    }
    return endHoldNow(ctx, matches[0]!, "mute");
  },
};

export const mutesVerb: VerbSpec = {
  name: "mutes",
  usage: "mutes",
  summary: "this channel's mutes and snoozes: cluster, who, why, until",
  examples: ["/palette mutes"],
  run: async (command, ctx) => {
    if (command.args.length > 0 || command.tags.length > 0) {
      return usageReply(mutesVerb, "`mutes` takes no words: it lists this channel's holds.");
    }
    return holdsList(ctx);
  },
};

export const muteVerbs: VerbSpec[] = [muteVerb, unmuteVerb, mutesVerb];
