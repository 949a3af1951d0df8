import type { PaletteApi } from "./api.ts";
import { type ClientCore, nextToken, seg } from "./client-core.ts";
import { auditPage, auditsQuery, auditsSchema, clusterEventsQuery, eventPage } from "./history.ts";
import { MAX_PAGES } from "./paging.ts";
import { eventsSchema, type PaletteEvent } from "./schemas.ts";
import { MAX_PAGE } from "./search-body.ts";

/**
 * The Palette client's reads of what happened to a cluster: its events (the newest few, or page
 * by page) and the audit log. history.ts says what the requests are and what the answers mean;
 * this module sends them.
 */

function timestampOf(event: PaletteEvent): number {
  const at = Date.parse(event.metadata?.creationTimestamp ?? "");
  return Number.isNaN(at) ? 0 : at;
}

type HistoryCalls = Pick<PaletteApi, "listClusterEvents" | "clusterEventsPage" | "listAudits">;

export function historyCalls({ call }: ClientCore): HistoryCalls {
  return {
    async listClusterEvents(uid, scope, limit = 20) {
      const wanted = Math.max(1, Math.floor(limit));
      const events: PaletteEvent[] = [];
      let next: string | undefined;
      for (let page = 0; page < MAX_PAGES && events.length < wanted; page++) {
        const result = await call(
          {
            method: "GET",
            path: `/v1/events/components/spectrocluster/${seg(uid)}`,
            query: { limit: Math.min(MAX_PAGE, wanted - events.length), continue: next },
            scope,
          },
          eventsSchema,
        );
        events.push(...result.items);
        const following = nextToken(result.listmeta?.continue);
        if (!following || following === next) break;
        next = following;
      }
      // newest first whatever order the server used; ties keep the server's order
      return events
        .map((event, index) => ({ event, index, at: timestampOf(event) }))
        .sort((a, b) => b.at - a.at || a.index - b.index)
        .slice(0, wanted)
        .map(({ event }) => event);
    },

    async clusterEventsPage(uid, scope, continueToken) {
      const path = `/v1/events/components/spectrocluster/${seg(uid)}`;
      const query = clusterEventsQuery(continueToken);
      return eventPage(await call({ method: "GET", path, query, scope }, eventsSchema));
    },

    async listAudits(query, scope) {
      const spec = { method: "GET" as const, path: "/v1/audits", query: auditsQuery(query), scope };
      return auditPage(await call(spec, auditsSchema));
    },
  };
}
