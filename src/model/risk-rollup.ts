import type { Risk, RiskKind } from "./risk.ts";

/**
 * Pure: which risk notices roll up (issue 31 item 3), as a storm of cluster cards folds into one
 * digest (src/notify/digest/digest.ts). Notices alike for one channel (the same kind of risk and, for a
 * newer profile version, the same profile versions) that are due together become one message
 * when there are more than ROLLUP_OVER of them; a channel that already has an open roll-up of
 * the group adds newcomers to it (the message is edited) instead of posting them one by one.
 */

/** more notices alike than this for one channel at once become one roll-up */
export const ROLLUP_OVER = 5;

const UPDATE_PREFIX = "newer profile version: ";

/**
 * The group a risk rolls up in. A newer profile version's summary names the profile versions
 * (src/model/risk.ts updateRisk), so clusters on the same profile behind the same version share
 * it; other kinds roll up by kind.
 */
export function rollupGroup(risk: Pick<Risk, "kind" | "summary">): string {
  return risk.kind === "update" ? `update:${rollupLabel(risk) ?? ""}` : risk.kind;
}

/** What the group is about beyond its kind: the profile versions (plain text), if any. */
export function rollupLabel(risk: Pick<Risk, "kind" | "summary">): string | undefined {
  if (risk.kind !== "update") return undefined;
  return risk.summary.startsWith(UPDATE_PREFIX)
    ? risk.summary.slice(UPDATE_PREFIX.length)
    : risk.summary;
}

export interface DueNotice {
  channel: string;
  risk: Pick<Risk, "kind" | "summary">;
}

export interface RollupPlan<T extends DueNotice> {
  /** posted one by one, as before */
  singles: T[];
  /** one message each: `open` groups already have one (it is edited), the rest are posted */
  rollUps: Array<{ channel: string; group: string; kind: RiskKind; open: boolean; members: T[] }>;
}

/** the key of a channel's group, as `open` holds them */
export const rollupKey = (channel: string, group: string): string => `${channel}\u0000${group}`;

/**
 * Splits the notices due now: by channel and group, in the order they came; a group with an open
 * roll-up in that channel joins it, a group of more than `over` becomes a new one, the rest stay
 * single.
 */
export function planNotices<T extends DueNotice>(
  due: readonly T[],
  open: ReadonlySet<string>,
  over = ROLLUP_OVER,
): RollupPlan<T> {
  const groups = new Map<string, { channel: string; group: string; members: T[] }>();
  for (const notice of due) {
    const group = rollupGroup(notice.risk);
    const key = rollupKey(notice.channel, group);
    const entry = groups.get(key) ?? { channel: notice.channel, group, members: [] };
    entry.members.push(notice);
    groups.set(key, entry);
  }
  const plan: RollupPlan<T> = { singles: [], rollUps: [] };
  for (const [key, entry] of groups) {
    const isOpen = open.has(key);
    if (isOpen || entry.members.length > over) {
      plan.rollUps.push({
        channel: entry.channel,
        group: entry.group,
        kind: entry.members[0]!.risk.kind,
        open: isOpen,
        members: entry.members,
      });
    } else plan.singles.push(...entry.members);
  }
  return plan;
}
