import type { EdgeHostRecord } from "../model/edge-host.ts";
import { type EdgeHostSearch, edgeHostPages, type PaletteEdgeApi } from "../palette/edge-api.ts";
import type { EdgeHostSummary } from "../palette/edge-reads.ts";
import { PaletteError } from "../palette/errors.ts";

/**
 * How the poll reads one scope's edge hosts (issue 39), so that 10,000 hosts cost a handful of
 * requests a cycle rather than 200 pages:
 * - incremental (every cycle): every unhealthy host (server-side filter; one page per 50 of
 *   them), then the hosts Palette changed most recently (sorted on lastModifiedTimestamp,
 *   newest first) until a page reaches what the last read saw: in a steady fleet, one page. A
 *   host the bot remembers as unhealthy that neither pass returned is asked for by uid: a 404
 *   is a host deleted from Palette, whose notice then ends without waiting for a reconciliation.
 * - reconciliation (on its schedule): the full listing; whatever the bot remembers that is not
 *   in it is gone.
 * The caller marks the work's priority (inBackground, inBulk), as the cluster poll does.
 */

export interface EdgeScopeRead {
  /** hosts read, by uid */
  seen: Map<string, EdgeHostSummary>;
  /** remembered hosts Palette no longer has */
  gone: string[];
  /** Palette requests this read made */
  requests: number;
}

type EdgeReads = Pick<PaletteEdgeApi, "searchEdgeHosts" | "getEdgeHost">;

/**
 * A host without a lastModifiedTimestamp counts as old: the sorted pass then stops at its page
 * rather than walking the whole fleet every cycle (the reconciliation still reads it).
 */
const modified = (host: EdgeHostSummary): number => {
  const at = Date.parse(host.lastModifiedAt ?? "");
  return Number.isNaN(at) ? Number.NEGATIVE_INFINITY : at;
};

/** The scope's project, as the search wants it: "" is the tenant. */
const scopeQuery = (scope: string): Pick<EdgeHostSearch, "projectUid"> =>
  scope ? { projectUid: scope } : {};

export async function readEdgeIncremental(
  palette: EdgeReads,
  scope: string,
  known: { watermark: number | undefined; unhealthy: readonly EdgeHostRecord[] },
): Promise<EdgeScopeRead> {
  const seen = new Map<string, EdgeHostSummary>();
  let requests = 0;
  for await (const page of edgeHostPages(palette, {
    ...scopeQuery(scope),
    health: ["unhealthy"],
  })) {
    requests += 1;
    for (const host of page) seen.set(host.uid, host);
  }
  const recent = edgeHostPages(palette, {
    ...scopeQuery(scope),
    sort: [{ field: "lastModifiedTimestamp", order: "desc" }],
  });
  for await (const page of recent) {
    requests += 1;
    for (const host of page) seen.set(host.uid, host);
    // newest first: a page that reaches the watermark holds everything newer
    const reached = page.some((host) => modified(host) <= (known.watermark ?? -1));
    if (known.watermark === undefined || reached) break;
  }
  const gone: string[] = [];
  for (const record of known.unhealthy) {
    if (seen.has(record.uid)) continue;
    requests += 1;
    try {
      const host = await palette.getEdgeHost(record.uid, scopeQuery(record.projectUid || scope));
      seen.set(host.uid, host);
    } catch (error) {
      if (error instanceof PaletteError && error.status === 404) gone.push(record.uid);
      else throw error;
    }
  }
  return { seen, gone, requests };
}

export async function readEdgeFull(
  palette: EdgeReads,
  scope: string,
  remembered: readonly EdgeHostRecord[],
): Promise<EdgeScopeRead> {
  const seen = new Map<string, EdgeHostSummary>();
  let requests = 0;
  for await (const page of edgeHostPages(palette, scopeQuery(scope))) {
    requests += 1;
    for (const host of page) seen.set(host.uid, host);
  }
  const gone = remembered.filter((record) => !seen.has(record.uid)).map((record) => record.uid);
  return { seen, gone, requests };
}
