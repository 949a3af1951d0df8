import type { Page, Scope } from "./api.ts";
import type { EdgeHostDetail, EdgeHostSummary, EdgeToken } from "./edge-reads.ts";
import type { EdgeHostFilter, EdgeSort } from "./edge-search-body.ts";
import { continuePages } from "./paging.ts";
import type { PaletteEvent } from "./schemas.ts";

/**
 * Palette's edge fleet as the bot reads it (issue 39). Apart from PaletteApi, as the identity
 * calls are, so the many fakes of the read API need not grow them. Reads only: the device-side
 * writes (register, PATCH health, tunnelStatus, hostPairingKey) are the hosts' own and never
 * called. Every method throws PaletteError or PaletteSchemaError and nothing else.
 */

export interface EdgeHostSearch extends Scope, EdgeHostFilter {
  sort?: EdgeSort[];
  /** at most 50 (Palette's maximum) */
  limit?: number;
  continue?: string;
}

export interface PaletteEdgeApi {
  /** POST /v1/dashboard/edgehosts/search: one page */
  searchEdgeHosts(query: EdgeHostSearch): Promise<Page<EdgeHostSummary>>;
  /** GET /v1/edgehosts/{uid} */
  getEdgeHost(uid: string, scope: Scope): Promise<EdgeHostDetail>;
  /** GET /v1/spectroclusters/{uid}/edge-native/edgeHosts */
  clusterEdgeHosts(clusterUid: string, scope: Scope): Promise<EdgeHostDetail[]>;
  /** GET /v1/edgehosts/tags: every tag in use, as `key:value` */
  edgeHostTags(scope: Scope): Promise<string[]>;
  /** GET /v1/events/components/edgehost/{uid}: one page, newest first (project scope needed) */
  edgeHostEventsPage(
    uid: string,
    scope: Scope,
    continueToken?: string,
  ): Promise<Page<PaletteEvent>>;
  /** GET /v1/edgehosts/tokens: the registration tokens, without the token itself */
  listEdgeTokens(scope: Scope): Promise<EdgeToken[]>;
}

/**
 * An edge host search page by page (pages of 50, `listmeta.continue` followed), for callers that
 * count their requests or stop early (an incremental read sorted by last change stops at the
 * first page older than what it has seen). A looping listing fails rather than passing for a
 * shorter fleet.
 */
export async function* edgeHostPages(
  palette: Pick<PaletteEdgeApi, "searchEdgeHosts">,
  query: Omit<EdgeHostSearch, "continue" | "limit">,
): AsyncGenerator<EdgeHostSummary[]> {
  yield* continuePages(
    (next) => palette.searchEdgeHosts({ ...query, continue: next }),
    "edge host search",
  );
}
