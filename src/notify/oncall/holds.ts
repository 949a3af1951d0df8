import type { CardPayload, Hold, HoldChange, OutboxDraft } from "../../model/notification.ts";
import { HoldStore } from "../../store/holds.ts";
import { SnapshotStore } from "../../store/snapshots.ts";
import type { SqlExecutor } from "../../store/sql.ts";
import { endSummary, splitHeld } from "./held-news.ts";

/**
 * Snoozes and mutes against the store. Both functions write and must run inside the caller's
 * transaction (the poll cycle's commit, or an Unsnooze/Unmute), so news is kept, and a hold ended
 * and its summary queued, all at once or not at all.
 */

export interface HeldCycle {
  /** per channel, the news that goes out now */
  posted: Map<string, CardPayload[]>;
  /** the end summaries of holds whose time came, as outbox rows (before this cycle's news) */
  ended: OutboxDraft[];
  /** every card whose holds ended this cycle: the edge redraws the silent ones */
  changes: HoldChange[];
  kept: number;
}

/**
 * One cycle: holds whose time has come end first (so their cluster's news of this cycle is
 * posted, after the summary), then the news of clusters still held is kept.
 */
export async function holdCycle(
  tx: SqlExecutor,
  news: ReadonlyMap<string, readonly CardPayload[]>,
  nowMs: number,
  at: string,
): Promise<HeldCycle> {
  const holds = new HoldStore(tx);
  const { drafts, changes } = await endHolds(tx, await holds.due(nowMs), nowMs, at);
  const { posted, kept } = splitHeld(news, await holds.list(), nowMs);
  for (const { channel, payload } of kept) {
    await holds.keep(channel, payload.cluster.uid, payload, at);
  }
  return { posted, ended: drafts, changes, kept: kept.length };
}

/**
 * Ends `ended` (removes them). For each card whose last hold this was, the news kept meanwhile
 * becomes one outbox `card` row: the card is edited to show the cluster as it is now, and its
 * thread gets one line saying what happened (src/views/notification.ts). Nothing kept, nothing
 * queued. A card still held by its other kind keeps its news until that one ends too.
 */
export async function endHolds(
  tx: SqlExecutor,
  ended: readonly Hold[],
  nowMs: number,
  at: string,
  endedBy?: string,
): Promise<{ drafts: OutboxDraft[]; changes: HoldChange[] }> {
  const holds = new HoldStore(tx);
  const snapshots = new SnapshotStore(tx);
  const byCard = new Map<string, Hold[]>();
  for (const hold of ended) {
    const id = `${hold.channel}\u0000${hold.clusterUid}`;
    byCard.set(id, [...(byCard.get(id) ?? []), hold]);
  }
  const drafts: OutboxDraft[] = [];
  const changes: HoldChange[] = [];
  for (const group of byCard.values()) {
    const { channel, clusterUid } = group[0]!;
    for (const hold of group) await holds.remove(channel, clusterUid, hold.kind);
    let stillHeld = false;
    for (const kind of ["snooze", "mute"] as const) {
      const other = await holds.get(channel, clusterUid, kind);
      if (other !== undefined && other.untilMs > nowMs) stillHeld = true;
    }
    if (stillHeld) continue;
    const kept = (await holds.kept(channel, clusterUid)).map((row) => row.payload as CardPayload);
    await holds.forgetKept(channel, clusterUid);
    const payload = endSummary({
      ended: group,
      kept,
      current: await snapshots.byUid(clusterUid),
      at,
      endedBy,
    });
    if (payload) drafts.push({ channel, kind: "card", clusterUid, payload });
    changes.push({ channel, clusterUid, queued: payload !== undefined });
  }
  return { drafts, changes };
}
