import type { Logger } from "../../log.ts";
import { likelyCause } from "../../model/likely-cause.ts";
import type { CardPayload } from "../../model/notification.ts";
import type { PaletteApi } from "../../palette/api.ts";
import { auditEntryAs, eventEntry } from "../../palette/history.ts";

/**
 * The likely-cause line of a notification that says a cluster lost health or failed (issue 27):
 * the same rule as `/palette why` (src/model/likely-cause.ts), read from two Palette calls per
 * announced cluster, both narrowed to the cluster and the hour before now (one page of its audit,
 * one page of its events, newest first). The reads come out of the poll's own budget of event
 * reads and its time window; a cluster that would only reach a channel inside a roll-up of many
 * (a storm) is read nothing for: the roll-up says so. No line when no cause is recorded.
 */

export const CAUSE_WINDOW_MS = 60 * 60_000;

export interface CauseLineInput {
  palette: Pick<PaletteApi, "listAudits" | "clusterEventsPage">;
  /** this cycle's cards, by channel (before holds and folding) */
  news: ReadonlyMap<string, CardPayload[]>;
  /** a channel with more cards than this gets one roll-up instead (DIGEST_THRESHOLD) */
  rollUpOver: number;
  /**
   * WHY_SHOW_EMAIL: name the actor by e-mail; otherwise by their Palette name (a channel card is
   * read by everyone in the channel, `why` only by the person on ALLOW_WHY who asked)
   */
  showEmail: boolean;
  now: number;
  /** Palette calls left in the cycle's budget; each cluster costs 2 */
  budget: { eventCalls: number; until: number };
  logger: Logger;
}

function troubled(card: CardPayload): boolean {
  if (card.held) return false;
  const failed = card.kinds.includes("state") && card.cluster.state.toLowerCase() === "failed";
  return card.kinds.includes("health-lost") || failed;
}

const hhmm = (ms: number) => `${new Date(ms).toISOString().slice(11, 16)} UTC`;

/** Adds the line to the cards it applies to; returns the Palette calls made. */
export async function addLikelyCauseLines(input: CauseLineInput): Promise<number> {
  const wanted = new Map<string, CardPayload[]>();
  for (const cards of input.news.values()) {
    // a channel that gets a roll-up reads nothing for its clusters
    if (cards.length > input.rollUpOver) continue;
    for (const card of cards) {
      if (!troubled(card)) continue;
      const list = wanted.get(card.cluster.uid) ?? [];
      list.push(card);
      wanted.set(card.cluster.uid, list);
    }
  }
  let calls = 0;
  for (const [uid, cards] of wanted) {
    if (input.budget.eventCalls < 2 || performance.now() >= input.budget.until) break;
    input.budget.eventCalls -= 2;
    const cluster = cards[0]!.cluster;
    const scope = cluster.project ? { projectUid: cluster.project } : {};
    try {
      calls += 2;
      const [audits, events] = await Promise.all([
        input.palette.listAudits(
          {
            resourceUid: uid,
            ...(cluster.project ? { projectUid: cluster.project } : {}),
            startTime: input.now - CAUSE_WINDOW_MS,
            endTime: input.now,
          },
          scope,
        ),
        input.palette.clusterEventsPage(uid, scope),
      ]);
      const entries = [
        ...audits.items.map((audit) => auditEntryAs(audit, { showEmail: input.showEmail })),
        ...events.items.map(eventEntry),
      ].filter(
        (entry) =>
          entry !== undefined && entry.at >= input.now - CAUSE_WINDOW_MS && entry.at <= input.now,
      );
      const cause = likelyCause(
        entries.filter((entry) => entry !== undefined),
        { state: cluster.state, health: cluster.health },
        input.now,
      );
      let line: string | undefined;
      if (cause.kind === "write") {
        const who = cause.entry.who?.kind === "palette" ? ` by ${cause.entry.who.name}` : "";
        const message = cause.entry.message ? ` — ${cause.entry.message}` : "";
        line = `Likely cause: ${cause.entry.what}${who} at ${hhmm(cause.entry.at)}${message}`;
      } else if (cause.kind === "event") {
        const message = cause.entry.message ? ` — ${cause.entry.message}` : "";
        line = `Likely cause: no change recorded before it; the warning event ${cause.entry.what} at ${hhmm(cause.entry.at)} began it${message}`;
      }
      if (line) for (const card of cards) card.lines.push(line.slice(0, 500));
    } catch (error) {
      // the line is a nicety: the notification goes out without it
      input.logger.warn({ err: String(error), cluster: uid }, "likely cause unavailable");
    }
  }
  return calls;
}
