import type { ClusterSearch, PaletteApi } from "./api.ts";
import { PaletteError } from "./errors.ts";
import type { ClusterSummary } from "./schemas.ts";
import { MAX_PAGE } from "./search-body.ts";

/** Guards against a server that hands out continue tokens forever. */
export const MAX_PAGES = 2_000;

/**
 * A listing that stops early must not pass for a shorter fleet (the poll would announce the rest
 * as deleted): a repeated continue token, or one past MAX_PAGES, fails the whole listing.
 */
function incompleteListing(what: string, why: string): PaletteError {
  return new PaletteError(
    "server",
    0,
    "IncompleteListing",
    `Palette's ${what} listing did not finish (${why}); nothing was taken from it`,
    undefined,
    what,
  );
}

/** The next continue token, or a thrown error when the listing loops or never ends. */
export function nextPageToken(
  token: string | undefined,
  seen: Set<string>,
  page: number,
  what: string,
): string | undefined {
  if (!token) return undefined;
  if (seen.has(token)) throw incompleteListing(what, "a continue token came back twice");
  if (page + 1 >= MAX_PAGES) throw incompleteListing(what, `more than ${MAX_PAGES} pages`);
  seen.add(token);
  return token;
}

/**
 * Any `listmeta.continue` listing page by page, each page handed on as it arrives; a looping or
 * endless listing fails (`what` names it in the error).
 */
export async function* continuePages<T>(
  fetchPage: (continueToken: string | undefined) => Promise<{ items: T[]; continue?: string }>,
  what: string,
): AsyncGenerator<T[]> {
  const seen = new Set<string>();
  let next: string | undefined;
  for (let page = 0; ; page++) {
    const result = await fetchPage(next);
    yield result.items;
    next = nextPageToken(result.continue, seen, page, what);
    if (!next) return;
  }
}

/**
 * A cluster search page by page (pages of 50, `listmeta.continue` followed), for callers that
 * handle each page as it arrives rather than the whole listing at once, and that count the
 * requests they make. Same guard as `searchAllClusters`: a looping listing fails.
 */
export async function* clusterPages(
  palette: Pick<PaletteApi, "searchClusters">,
  query: Omit<ClusterSearch, "continue" | "limit">,
): AsyncGenerator<ClusterSummary[]> {
  yield* continuePages(
    (next) => palette.searchClusters({ ...query, limit: MAX_PAGE, continue: next }),
    "cluster search",
  );
}
