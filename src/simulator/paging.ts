/**
 * Palette-style paging: `limit` (at most 50) and an opaque `continue` token that is base64 of
 * JSON `{offset, count, token}`, as in the listmeta example of the API docs.
 */

export const MAX_LIMIT = 50;

export interface ListMeta {
  continue: string;
  count: number;
  limit: number;
  offset: number;
}

export class BadPageRequest extends Error {}

export function encodeContinue(offset: number, count: number): string {
  return Buffer.from(JSON.stringify({ offset, count, token: "" })).toString("base64");
}

export function decodeContinue(token: string): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, "base64").toString("utf8"));
  } catch {
    throw new BadPageRequest("continue token is not valid");
  }
  if (
    typeof parsed !== "object" ||
    parsed === null ||
    !("offset" in parsed) ||
    typeof parsed.offset !== "number" ||
    !Number.isInteger(parsed.offset) ||
    parsed.offset < 0
  ) {
    throw new BadPageRequest("continue token is not valid");
  }
  return parsed.offset;
}

/** Reads `limit`, `offset` and `continue` query values; limits above 50 are clamped to 50. */
export function pageRequest(
  query: URLSearchParams,
  defaultLimit = MAX_LIMIT,
): {
  offset: number;
  limit: number;
} {
  const rawLimit = query.get("limit");
  let limit = defaultLimit;
  if (rawLimit !== null && rawLimit !== "") {
    const parsed = Number(rawLimit);
    if (!Number.isInteger(parsed) || parsed < 0) {
      throw new BadPageRequest(`limit must be a non-negative integer, got ${rawLimit}`);
    }
    limit = parsed === 0 ? defaultLimit : parsed;
  }
  limit = Math.min(limit, MAX_LIMIT);
  const token = query.get("continue");
  let offset = 0;
  if (token) offset = decodeContinue(token);
  else {
    const rawOffset = query.get("offset");
    if (rawOffset) {
      const parsed = Number(rawOffset);
      if (!Number.isInteger(parsed) || parsed < 0) {
        throw new BadPageRequest(`offset must be a non-negative integer, got ${rawOffset}`);
      }
      offset = parsed;
    }
  }
  return { offset, limit };
}

/**
 * One page of `items`. `listmeta.offset` is the offset of the next page, as in the documented
 * fragment (first page of 117 → offset 50); `continue` is empty on the last page.
 */
export function paginate<T>(
  items: readonly T[],
  page: { offset: number; limit: number },
): { items: T[]; listmeta: ListMeta } {
  const slice = items.slice(page.offset, page.offset + page.limit);
  const next = page.offset + slice.length;
  return {
    items: slice,
    listmeta: {
      continue: next < items.length ? encodeContinue(next, items.length) : "",
      count: items.length,
      limit: page.limit,
      offset: next,
    },
  };
}
