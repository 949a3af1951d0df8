import type { ChangePlan } from "../model/change.ts";
import type { TimelineEntry, WhySource } from "../model/why.ts";
import type { ClusterRecord } from "../store/cluster-record.ts";

export type { TimelineEntry, Who, WhySource } from "../model/why.ts";
// Palette's records as entries live with the reads (the poll's notifications use them too)
export { actorName, auditEntry, eventEntry, severityOf } from "../palette/history.ts";

/**
 * A cluster's story as one list: Palette's audit entries, Palette's events and the bot's own
 * record, each made an entry with a time, a who and a what. Pure: the reads are in gather.ts.
 * Texts are raw here; the view (src/views/why.ts) escapes every one of them.
 */

/** "scale worker-pool 3 → 5", plain words for a change (escaped by the view). */
export function planWords(plan: ChangePlan): string {
  switch (plan.verb) {
    case "scale":
      return `scale ${plan.pool} ${plan.from} → ${plan.to}`;
    case "cordon":
    case "uncordon":
      return `${plan.verb} ${plan.machine.name}`;
    case "repave":
      return "approve the pending repave";
    case "backup":
      return "back up now";
    case "logs":
      return "fetch the logs";
    case "upgrade":
      return `upgrade ${plan.profile.name} ${plan.profile.fromVersion} → ${plan.profile.toVersion}`;
    default:
      return plan.verb;
  }
}

/** a change that reached Palette (or may have): a write; refused, rejected or expired ones not */
const SENT = new Set(["executing", "accepted", "unconfirmed", "done"]);

const OUTCOME: Record<string, string> = {
  awaiting_approval: "awaiting approval",
  rejected: "rejected",
  expired: "expired unapproved",
  executing: "being sent",
  accepted: "accepted by Palette, in progress",
  unconfirmed: "sent, not confirmed yet",
  done: "done",
  failed: "failed",
};

export function botEntries(record: ClusterRecord): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  for (const launch of record.launches) {
    entries.push({
      at: launch.at,
      source: "bot",
      who: { kind: "slack", userId: launch.requester },
      what: "launch",
      message: `launched ${launch.provider} cluster ${launch.name}`,
      write: false,
      ...(launch.paletteUser ? { detail: `as Palette user ${launch.paletteUser}` } : {}),
    });
  }
  for (const change of record.changes) {
    const outcome = OUTCOME[change.status] ?? change.status;
    entries.push({
      at: change.acceptedAt ?? change.createdAt,
      source: "bot",
      who: { kind: "slack", userId: change.requester },
      what: change.verb,
      message: planWords(change.plan),
      write:
        SENT.has(change.status) || (change.status === "failed" && change.acceptedAt !== undefined),
      ...(change.approver ? { approver: change.approver } : {}),
      detail:
        change.reason && change.status === "failed" ? `${outcome}: ${change.reason}` : outcome,
    });
  }
  for (const hold of record.holds) {
    entries.push({
      at: hold.at,
      source: "bot",
      who: { kind: "slack", userId: hold.userId },
      what: hold.action,
      message:
        hold.action === "ack" ? "acknowledged the card" : `${hold.action} of its notifications`,
      write: false,
      ...(hold.outcome !== "granted" && hold.outcome !== "created" ? { detail: hold.outcome } : {}),
    });
  }
  for (const freeze of record.freezes) {
    const scope =
      freeze.scope === "cluster"
        ? "this cluster"
        : freeze.scope === "project"
          ? "its project"
          : "every cluster";
    entries.push({
      at: freeze.createdAt,
      source: "bot",
      who: { kind: "slack", userId: freeze.frozenBy },
      what: "freeze",
      message: `froze changes to ${scope}: ${freeze.reason}`,
      write: false,
      detail: freeze.liftedAt !== undefined ? "lifted since" : "until its end",
    });
  }
  return entries;
}

const rankOf: Record<WhySource, number> = { audit: 0, bot: 1, event: 2 };

/** Newest first; at the same instant Palette's audit, then the bot, then events. */
export function mergeTimeline(...lists: ReadonlyArray<readonly TimelineEntry[]>): TimelineEntry[] {
  return lists
    .flat()
    .map((entry, index) => ({ entry, index }))
    .sort(
      (a, b) =>
        b.entry.at - a.entry.at ||
        rankOf[a.entry.source] - rankOf[b.entry.source] ||
        a.index - b.index,
    )
    .map(({ entry }) => entry);
}

/**
 * Many events: every warning and error stays, and normal events fill what is left of `limit`
 * (newest first); returns the entries kept (in timeline order) and how many normal ones were left out.
 */
export function warningsFirst(
  entries: readonly TimelineEntry[],
  limit: number,
): { kept: TimelineEntry[]; hiddenNormal: number } {
  const events = entries.filter((entry) => entry.source === "event");
  if (events.length <= limit) return { kept: [...entries], hiddenNormal: 0 };
  const troubled = events.filter((entry) => entry.severity !== "normal");
  const room = Math.max(0, limit - troubled.length);
  const normalKept = new Set(events.filter((entry) => entry.severity === "normal").slice(0, room));
  const kept = entries.filter(
    (entry) => entry.source !== "event" || entry.severity !== "normal" || normalKept.has(entry),
  );
  return { kept, hiddenNormal: entries.length - kept.length };
}
