import type { CardPayload, DigestPayload, OutboxDraft } from "../../model/notification.ts";

/** More cards than this for one channel in one poll become one digest. */
export const DIGEST_THRESHOLD = 10;
/**
 * A digest names this many clusters, each with what changed: enough that a restart's or an
 * incident's catch-up names everyone, few enough for one message (a few sections of ~3,000 chars).
 */
export const DIGEST_LINES = 60;

/**
 * Pure: one channel's cards of one poll → outbox rows. Past the threshold they fold into one
 * digest (counts by kind plus the first few clusters), so a fleet-wide event is one message
 * rather than minutes of paced posts.
 */
export function foldChannel(
  channel: string,
  cards: readonly CardPayload[],
  at: string,
  threshold = DIGEST_THRESHOLD,
): OutboxDraft[] {
  if (cards.length > threshold) return [{ channel, kind: "digest", payload: digestOf(cards, at) }];
  return cards.map((card) => ({
    channel,
    kind: "card",
    clusterUid: card.cluster.uid,
    payload: card,
  }));
}

export function digestOf(cards: readonly CardPayload[], at: string): DigestPayload {
  const counts: Record<string, number> = {};
  for (const card of cards) {
    for (const kind of card.kinds) counts[kind] = (counts[kind] ?? 0) + 1;
    for (const alert of card.alerts) {
      const key = `alert-${alert.status}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
  }
  const projects = [...new Set(cards.map((card) => card.cluster.project))];
  const lines = cards.slice(0, DIGEST_LINES).map((card) => {
    const c = card.cluster;
    const what = card.lines[0] ?? "changed";
    return `${c.name}: ${what} (now ${c.state || "?"}/${c.health || "?"})`;
  });
  return { project: projects.join(","), total: cards.length, counts, lines, at };
}
