import type { ClusterSnap } from "../../model/cluster.ts";
import type {
  AlertEvent,
  CardPayload,
  ChangeKind,
  HeldSummary,
  Hold,
  HoldKind,
} from "../../model/notification.ts";

/**
 * Pure steps of snoozes and mutes in the pipeline: which news a running hold keeps back, and the
 * one card row that says what happened meanwhile when the last hold ends.
 */

/** Changes a summary names one by one; the rest are counted. */
export const SUMMARY_CHANGES = 8;

const key = (channel: string, clusterUid: string) => `${channel}\u0000${clusterUid}`;

export interface HeldSplit {
  /** per channel, the news that goes out now, in its order */
  posted: Map<string, CardPayload[]>;
  /** the news a running snooze or mute keeps back */
  kept: Array<{ channel: string; payload: CardPayload }>;
}

/**
 * One poll's news per channel → what is posted and what is kept. A hold runs while
 * `untilMs > nowMs`; one whose time has come holds nothing (the pipeline ends it). Alerts and
 * cluster changes are held alike: the payload carries both.
 */
export function splitHeld(
  news: ReadonlyMap<string, readonly CardPayload[]>,
  holds: readonly Hold[],
  nowMs: number,
): HeldSplit {
  const running = new Set(
    holds.filter((hold) => hold.untilMs > nowMs).map((h) => key(h.channel, h.clusterUid)),
  );
  const posted = new Map<string, CardPayload[]>();
  const kept: HeldSplit["kept"] = [];
  for (const [channel, cards] of news) {
    const out: CardPayload[] = [];
    for (const card of cards) {
      if (running.has(key(channel, card.cluster.uid))) kept.push({ channel, payload: card });
      else out.push(card);
    }
    if (out.length > 0) posted.set(channel, out);
  }
  return { posted, kept };
}

/** One kept payload as short phrases: "Running → Upgrading", "health lost"… */
export function changePhrases(payload: CardPayload): string[] {
  const { cluster, previous } = payload;
  const phrases: string[] = [];
  for (const kind of payload.kinds) {
    switch (kind) {
      case "new":
        phrases.push("new");
        break;
      case "state":
        phrases.push(`${previous?.state || "?"} → ${cluster.state || "?"}`);
        break;
      case "health-lost":
        phrases.push("health lost");
        break;
      case "health-recovered":
        phrases.push("health recovered");
        break;
      case "health":
        phrases.push(`health ${previous?.health || "?"} → ${cluster.health || "?"}`);
        break;
      case "deleted":
        phrases.push("deleted");
        break;
      case "flapping":
        phrases.push("flapping");
        break;
      case "settled":
        phrases.push("settled");
        break;
    }
  }
  // an alert usually comes with the health change that raised it; alone it is the news
  if (phrases.length === 0) {
    for (const alert of payload.alerts) phrases.push(`${alert.alert} alert ${alert.status}`);
  }
  return phrases;
}

/** The alerts still raised after the kept news, each kind's latest word winning. */
function openAlerts(kept: readonly CardPayload[]): AlertEvent[] {
  const latest = new Map<string, AlertEvent>();
  for (const payload of kept) for (const alert of payload.alerts) latest.set(alert.alert, alert);
  return [...latest.values()].filter((alert) => alert.status === "raised");
}

const KIND_WORD: Record<HoldKind, { noun: string; while: string }> = {
  snooze: { noun: "Snooze", while: "snoozed" },
  mute: { noun: "Mute", while: "muted" },
};

/** Mutes first: a mute says who set it and why, which matters more than a snooze. */
const byKind = (a: { kind: HoldKind }, b: { kind: HoldKind }) =>
  a.kind === b.kind ? 0 : a.kind === "mute" ? -1 : 1;

/** "Mute", "Mute and snooze"; the participle of the first. */
export function heldWords(kinds: readonly HoldKind[]): { noun: string; while: string } {
  const sorted = [...new Set(kinds)].sort((a, b) => byKind({ kind: a }, { kind: b }));
  const first = KIND_WORD[sorted[0] ?? "snooze"];
  const noun = sorted.map((kind, i) => (i === 0 ? KIND_WORD[kind].noun : kind)).join(" and ");
  return { noun, while: first.while };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * The card row that ends the holds `ended` (the last ones of the cluster in the channel): the
 * cluster as it stands now (`current`, from the poller's memory; else the last kept news), what
 * changed meanwhile, and the alerts still open. Undefined when nothing was kept: a hold with no
 * change meanwhile ends silently.
 */
export function endSummary(input: {
  ended: readonly Hold[];
  kept: readonly CardPayload[];
  current?: ClusterSnap;
  at: string;
  endedBy?: string;
}): CardPayload | undefined {
  const { kept } = input;
  const last = kept.at(-1);
  if (!last) return undefined;
  const cluster = input.current ?? last.cluster;
  const phrases = kept.flatMap(changePhrases);
  const held: HeldSummary = {
    ended: [...input.ended].sort(byKind).map((hold) => ({
      kind: hold.kind,
      userId: hold.userId,
      ...(hold.reason ? { reason: hold.reason } : {}),
    })),
    changes: phrases.slice(0, SUMMARY_CHANGES),
    more: Math.max(0, phrases.length - SUMMARY_CHANGES),
    now: { state: cluster.state, health: cluster.health },
    ...(input.endedBy ? { endedBy: input.endedBy } : {}),
  };
  const kinds: ChangeKind[] = [...new Set(kept.flatMap((payload) => payload.kinds))];
  return {
    cluster,
    previous: kept[0]!.previous,
    kinds,
    lines: [plainSummary(held)],
    worse: kept.some((payload) => payload.worse),
    alerts: openAlerts(kept),
    at: input.at,
    held,
  };
}

/** The summary without mentions, for the card's "Last change" and plain-text fallbacks. */
export function plainSummary(held: HeldSummary): string {
  const words = heldWords(held.ended.map((hold) => hold.kind));
  const count = held.changes.length + held.more;
  const more = held.more > 0 ? `, …and ${held.more} more` : "";
  return `${words.noun} ended: ${plural(count, "change")} while ${words.while} (${held.changes.join(", ")}${more}); now ${held.now.state || "unknown"}, ${held.now.health || "unknown"}`;
}
