import type { LikelyCause, TimelineEntry } from "./why.ts";

export type { LikelyCause } from "./why.ts";

/**
 * The "likely cause" line of `/palette why`: the latest write by a person or an automation
 * (Palette's audit `update`/`deploy`/`action`, or a change sent through the bot) in the hour
 * before the cluster's current trouble began, else the warning event that began it. It never
 * guesses beyond the records: no trouble, no cause; no write, it says so. Pure, and in the ground
 * floor so both `/palette why` (src/why/) and the poll's notifications (src/notify/) use it.
 */

export const CAUSE_WINDOW_MS = 60 * 60_000;

/** Normal events that end a trouble (the cluster is well again). */
const RECOVERY = /(healthy|ready|recovered|running)$/i;

export interface ClusterNow {
  /** Palette's state now (Running, Failed, …); undefined when unknown */
  state?: string;
  /** Healthy, UnHealthy, Unknown; undefined when unknown */
  health?: string;
}

export function isTroubled(now: ClusterNow): boolean {
  const state = (now.state ?? "").toLowerCase();
  const health = (now.health ?? "").toLowerCase();
  if (state === "failed" || state === "error") return true;
  return health !== "" && health !== "healthy" && health !== "unknown";
}

/**
 * When the current trouble began: the earliest warning or error event after the last recovery
 * event (events newest first or in any order). Undefined when no such event is recorded.
 */
export function troubleStart(entries: readonly TimelineEntry[]): TimelineEntry | undefined {
  const events = entries
    .filter((entry) => entry.source === "event")
    .slice()
    .sort((a, b) => b.at - a.at);
  let start: TimelineEntry | undefined;
  for (const event of events) {
    if (event.severity === "normal") {
      if (RECOVERY.test(event.what)) break;
      continue;
    }
    start = event;
  }
  return start;
}

export function likelyCause(
  entries: readonly TimelineEntry[],
  now: ClusterNow,
  nowMs: number,
): LikelyCause {
  if (!isTroubled(now)) {
    return {
      kind: "no-trouble",
      ...(now.state ? { state: now.state } : {}),
      ...(now.health ? { health: now.health } : {}),
    };
  }
  const trouble = troubleStart(entries);
  const began = trouble?.at ?? nowMs;
  const write = latestWrite(entries, began - CAUSE_WINDOW_MS, began);
  if (write) {
    return { kind: "write", entry: write, troubleAt: began, ...(trouble ? { trouble } : {}) };
  }
  if (trouble) return { kind: "event", entry: trouble };
  return {
    kind: "unknown",
    ...(now.state ? { state: now.state } : {}),
    ...(now.health ? { health: now.health } : {}),
  };
}

function latestWrite(
  entries: readonly TimelineEntry[],
  from: number,
  to: number,
): TimelineEntry | undefined {
  let best: TimelineEntry | undefined;
  for (const entry of entries) {
    if (!entry.write || entry.at < from || entry.at > to) continue;
    if (!best || entry.at > best.at) best = entry;
  }
  return best;
}
