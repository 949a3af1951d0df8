import type { EdgeHostRecord } from "../model/edge-host.ts";
import type { EdgeHostSummary } from "../palette/edge-reads.ts";

/**
 * Pure: one edge host read (or found gone) against what the bot remembers of it, giving the new
 * record and at most one piece of news. The rules issue 39 asks for:
 * - a host read unhealthy starts its dark stretch at that read (Palette has no last-seen time;
 *   the bot's first sight is the measure); it is told only once dark for `graceMs`, so a flaky
 *   link that comes back within the grace posts nothing at all;
 * - a host unpaired is told at once (nobody is waiting for a grace there);
 * - a host told dark or unpaired that is healthy (or paired) again is told as recovered, with how
 *   long it was dark, so the channel's message is edited in place; an untold one recovers silently;
 * - a host gone from Palette ends its notice (news `gone` when something was told), and is
 *   forgotten;
 * - the first read of a scope (`baseline`) tells nothing: it only learns what holds, as the
 *   cluster poll's baseline does; what it finds dark or unpaired counts as told, so its recovery
 *   is news later.
 */

export type EdgeNews =
  | { kind: "unhealthy"; host: EdgeHostRecord; since: number }
  | { kind: "unpaired"; host: EdgeHostRecord }
  | { kind: "recovered"; host: EdgeHostRecord; was: "unhealthy" | "unpaired"; darkMs?: number }
  | { kind: "gone"; host: EdgeHostRecord; was: "unhealthy" | "unpaired" };

export interface ObserveContext {
  now: number;
  scope: string;
  /** the tag key naming a host's site (EDGE_SITE_TAG) */
  siteTag: string;
  graceMs: number;
  /** the scope's first read: learn, tell nothing */
  baseline?: boolean;
}

export interface Observation {
  /** undefined: forget the host */
  record: EdgeHostRecord | undefined;
  news?: EdgeNews;
}

/** The value of `key:value` among the tags for this key. */
export function siteOf(tags: readonly string[], siteTag: string): string | undefined {
  const prefix = `${siteTag}:`;
  const tag = tags.find((candidate) => candidate.startsWith(prefix));
  const value = tag?.slice(prefix.length);
  return value ? value : undefined;
}

function modifiedAt(host: EdgeHostSummary): number | undefined {
  const at = Date.parse(host.lastModifiedAt ?? "");
  return Number.isNaN(at) ? undefined : at;
}

/** What Palette says now, carried onto the record; the bot's own fields are set by `observe`. */
function fromPalette(
  host: EdgeHostSummary,
  previous: EdgeHostRecord | undefined,
  context: ObserveContext,
): EdgeHostRecord {
  const cluster = host.clusters[0];
  const record: EdgeHostRecord = {
    uid: host.uid,
    scope: context.scope,
    projectUid: host.projectUid ?? previous?.projectUid ?? context.scope,
    name: host.name,
    tags: [...host.tags],
    state: host.state ?? "",
    health: host.health ?? "",
    firstSeenAt: previous?.firstSeenAt ?? context.now,
    seenAt: context.now,
    told: previous?.told ?? "",
  };
  const site = siteOf(host.tags, context.siteTag);
  if (site) record.site = site;
  if (cluster) {
    record.clusterUid = cluster.uid;
    record.clusterName = cluster.name;
  }
  if (host.healthMessage) record.message = host.healthMessage;
  if (host.agentVersion) record.agentVersion = host.agentVersion;
  const modified = modifiedAt(host);
  if (modified !== undefined) record.modifiedAt = modified;
  if (previous?.lastSeenHealthy !== undefined) record.lastSeenHealthy = previous.lastSeenHealthy;
  return record;
}

export function observe(
  previous: EdgeHostRecord | undefined,
  seen: EdgeHostSummary | undefined,
  context: ObserveContext,
): Observation {
  if (!seen) {
    if (!previous) return { record: undefined };
    return previous.told && !context.baseline
      ? { record: undefined, news: { kind: "gone", host: previous, was: previous.told } }
      : { record: undefined };
  }
  const record = fromPalette(seen, previous, context);
  const unpaired = record.state === "unpaired";
  const unhealthy = !unpaired && record.health === "unhealthy";
  if (record.health === "healthy") record.lastSeenHealthy = context.now;
  if (unhealthy) {
    const stillDark = previous?.health === "unhealthy" && previous.unhealthySince !== undefined;
    record.unhealthySince = stillDark ? previous.unhealthySince : context.now;
  }

  if (context.baseline) {
    record.told = unpaired ? "unpaired" : unhealthy ? "unhealthy" : "";
    return { record };
  }
  if (unpaired) {
    if (record.told === "unpaired") return { record };
    record.told = "unpaired";
    return { record, news: { kind: "unpaired", host: record } };
  }
  if (unhealthy) {
    const since = record.unhealthySince ?? context.now;
    if (record.told === "unhealthy" || context.now - since < context.graceMs) return { record };
    record.told = "unhealthy";
    return { record, news: { kind: "unhealthy", host: record, since } };
  }
  const was = previous?.told ?? "";
  record.told = "";
  if (!was) return { record };
  const darkSince = previous?.unhealthySince;
  return {
    record,
    news: {
      kind: "recovered",
      host: record,
      was,
      ...(was === "unhealthy" && darkSince !== undefined
        ? { darkMs: context.now - darkSince }
        : {}),
    },
  };
}
