import type { Logger } from "../../log.ts";
import type { ClusterSnap } from "../../model/cluster.ts";
import type { PaletteApi } from "../../palette/api.ts";
import type { PaletteEvent } from "../../palette/schemas.ts";
import type { ScopeRead } from "../poll/scope-read.ts";
import { reasonFrom } from "./alerts.ts";

/*
 * Why an alert was raised, in words: the cluster's health conditions, plus its recent events
 * while the cycle's budget of event reads and its time window last. Events are a nicety: a read
 * that fails or comes too late leaves the conditions to explain the alert, never the cycle failed
 * or its commit held.
 */

/** Event reads in flight at once: the pacer keeps them under /v1/events' 10 a second anyway. */
const EVENT_READERS = 4;

/** What a cycle may still spend on event reads: calls, and until when (performance.now()). */
export interface EventBudget {
  eventCalls: number;
  until: number;
}

/**
 * A cycle's budget of event reads. An incremental cycle stays within what its scopes' reads allow
 * (pages, name searches, 3 more a scope): event reads get what the reads left, and the reasons of
 * the others come from health conditions.
 */
export function eventBudget(
  reads: Iterable<ScopeRead>,
  callsSoFar: number,
  maxEventCalls: number,
  windowMs: number,
): EventBudget {
  const allowances = [...reads].map((read) => read.callAllowance);
  const leftOver = allowances.every((a) => a !== undefined)
    ? allowances.reduce((sum, a) => sum + (a ?? 0), 0) - callsSoFar
    : Number.POSITIVE_INFINITY;
  return {
    eventCalls: Math.max(0, Math.min(maxEventCalls, leftOver)),
    until: performance.now() + windowMs,
  };
}

export interface ReasonDeps {
  palette: Pick<PaletteApi, "listClusterEvents">;
  logger: Logger;
  /** events read per cluster */
  eventsLimit: number;
}

/**
 * Alert reasons: health conditions, plus each cluster's recent events while this cycle's budget
 * lasts. The budget is the cycle's, not a project's, and the reads run a few at a time: after a
 * restart many clusters need a reason at once, and a cycle that spends its time reading events
 * one by one may never commit before the next restart.
 */
export async function reasonsFor(
  deps: ReasonDeps,
  uids: string[],
  conditionsByUid: ReadonlyMap<string, string[]>,
  health: ReadonlyMap<string, ClusterSnap>,
  budget: EventBudget,
): Promise<{ reasons: Map<string, string>; calls: number }> {
  const { palette, logger, eventsLimit } = deps;
  const reasons = new Map<string, string>();
  const wanted = uids.filter((uid) => health.has(uid));
  const timeLeft = budget.until - performance.now();
  const withEvents = timeLeft > 0 ? wanted.slice(0, Math.max(0, budget.eventCalls)) : [];
  budget.eventCalls -= withEvents.length;
  const events = new Map<string, PaletteEvent[]>();
  const queue = [...withEvents];
  const reader = async () => {
    for (let uid = queue.shift(); uid !== undefined; uid = queue.shift()) {
      const snap = health.get(uid)!;
      try {
        events.set(
          uid,
          await palette.listClusterEvents(
            uid,
            snap.project ? { projectUid: snap.project } : {},
            eventsLimit,
          ),
        );
      } catch (error) {
        // the reason is a nicety: conditions alone still explain the alert
        logger.warn({ err: String(error), cluster: uid }, "cluster events unavailable");
      }
    }
  };
  const readers = Promise.all(
    Array.from({ length: Math.min(EVENT_READERS, queue.length) }, reader),
  );
  // Under Palette's faults (a 429 waits a second, a slow answer two) the reads could hold the
  // commit for seconds, and a restart meanwhile loses the whole cycle: the chaos run saw cycles
  // of 6 s killed before they committed, so states that lived 15 s were read by no committed
  // poll. The reads get the cycle's window; those still out are left (events are a nicety).
  let timer: NodeJS.Timeout | undefined;
  const windowEnds = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, timeLeft));
  });
  await Promise.race([readers, windowEnds]);
  clearTimeout(timer);
  queue.length = 0;
  const read = new Map(events);
  for (const uid of wanted) {
    const snap = health.get(uid)!;
    reasons.set(uid, reasonFrom(snap.health, conditionsByUid.get(uid) ?? [], read.get(uid) ?? []));
  }
  return { reasons, calls: withEvents.length };
}
