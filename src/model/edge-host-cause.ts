import type { EdgeHostRecord } from "./edge-host.ts";
import { CAUSE_WINDOW_MS, troubleStart } from "./likely-cause.ts";
import type { TimelineEntry } from "./why.ts";

/**
 * The likely-cause line of `why <edge host>` (issue 39, item 4). Palette keeps no last-seen time
 * for a host, so the line puts side by side what only the bot measured (its first read of the
 * host unhealthy, its last read of it healthy), the host's last event, a write to the host in the
 * hour before, and when the host's cluster's trouble began. It states records, never guesses:
 * a fact nobody recorded is left out, and the bot says when it has no record of the host. Pure.
 */

export interface EdgeHostNow {
  /** `ready` | `unpaired` | `in-use` */
  state?: string;
  /** `healthy` | `unhealthy` (lower case, as Palette writes it for hosts) */
  health?: string;
  message?: string;
}

export type EdgeHostCause =
  | { kind: "no-trouble"; state?: string; health?: string }
  | {
      kind: "dark";
      /** what is wrong now: `unhealthy` or `unpaired` */
      trouble: "unhealthy" | "unpaired";
      message?: string;
      /** the bot's first read of this dark stretch; undefined: the bot has no record of it */
      botSince?: number;
      lastSeenHealthy?: number;
      /** the bot has never read this host (not watched yet, or outside its poll) */
      noRecord: boolean;
      /** the host's newest warning or error event, else its newest event */
      lastEvent?: TimelineEntry;
      /** the latest write to the host in the hour before it went dark */
      write?: TimelineEntry;
      /** its cluster, and the event that began the cluster's current trouble */
      cluster?: { name: string; trouble?: TimelineEntry };
    };

/** The bot's own record of a host's health, as entries of its story. */
export function edgeRecordEntries(
  record: EdgeHostRecord | undefined,
  range: { sinceMs: number; untilMs: number },
): TimelineEntry[] {
  if (!record) return [];
  const entries: TimelineEntry[] = [];
  if (record.unhealthySince !== undefined) {
    entries.push({
      at: record.unhealthySince,
      source: "bot",
      what: "unhealthy",
      message: `the bot first read it unhealthy${record.message ? `: ${record.message}` : ""}`,
      write: false,
    });
  }
  if (record.lastSeenHealthy !== undefined) {
    entries.push({
      at: record.lastSeenHealthy,
      source: "bot",
      what: "healthy",
      message: "the bot's last read of it healthy",
      write: false,
    });
  }
  return entries.filter((entry) => entry.at >= range.sinceMs && entry.at <= range.untilMs);
}

export function edgeHostCause(input: {
  now: EdgeHostNow;
  record: EdgeHostRecord | undefined;
  /** the host's own entries: its events and Palette's audit of it */
  hostEntries: readonly TimelineEntry[];
  cluster?: { name: string; entries: readonly TimelineEntry[] };
}): EdgeHostCause {
  const { now, record } = input;
  const state = now.state?.toLowerCase();
  const health = now.health?.toLowerCase();
  const trouble =
    state === "unpaired" ? "unpaired" : health === "unhealthy" ? "unhealthy" : undefined;
  if (!trouble) {
    return {
      kind: "no-trouble",
      ...(now.state ? { state: now.state } : {}),
      ...(now.health ? { health: now.health } : {}),
    };
  }
  const events = input.hostEntries
    .filter((entry) => entry.source === "event")
    .sort((a, b) => b.at - a.at);
  const lastEvent = events.find((entry) => entry.severity !== "normal") ?? events[0];
  // when it went dark: the bot's own first read, else the event that began it
  const botSince = trouble === "unhealthy" ? record?.unhealthySince : undefined;
  const darkAt = botSince ?? troubleStart(input.hostEntries)?.at;
  const write =
    darkAt === undefined
      ? undefined
      : input.hostEntries
          .filter(
            (entry) => entry.write && entry.at <= darkAt && entry.at >= darkAt - CAUSE_WINDOW_MS,
          )
          .sort((a, b) => b.at - a.at)[0];
  const clusterTrouble = input.cluster ? troubleStart(input.cluster.entries) : undefined;
  return {
    kind: "dark",
    trouble,
    ...(now.message ? { message: now.message } : {}),
    ...(botSince !== undefined ? { botSince } : {}),
    ...(record?.lastSeenHealthy !== undefined ? { lastSeenHealthy: record.lastSeenHealthy } : {}),
    noRecord: record === undefined,
    ...(lastEvent ? { lastEvent } : {}),
    ...(write ? { write } : {}),
    ...(input.cluster
      ? {
          cluster: {
            name: input.cluster.name,
            ...(clusterTrouble ? { trouble: clusterTrouble } : {}),
          },
        }
      : {}),
  };
}
