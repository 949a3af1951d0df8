/**
 * Bodies of Palette's filter-summary searches (v1SearchFilterSummarySpec), in the shape of
 * the documented search example (test/fixtures/palette-api/examples/dashboard-spectroclusters-search.request.json). Pure.
 */

export interface SearchFilterBody {
  filter: {
    conjunction: "and";
    filterGroups: Array<{
      conjunction: "and";
      filters: Array<{
        property: "tag";
        type: "string";
        condition: {
          string: {
            operator: "eq";
            negation: false;
            match: { conjunction: "or"; values: string[] };
            ignoreCase: false;
          };
        };
      }>;
    }>;
  };
  sort: never[];
}

/**
 * Tags as users type them (`dev`, `team:core`) go verbatim into `match.values`, which is how
 * Palette stores tags. A cluster matches when it carries any of them (`conjunction: "or"`, as
 * in the example). No tags means no filter groups: every cluster in scope.
 */
export function clusterSearchBody(tags: readonly string[] = []): SearchFilterBody {
  const values = [...new Set(tags.map((tag) => tag.trim()).filter((tag) => tag.length > 0))];
  if (values.length === 0) {
    return { filter: { conjunction: "and", filterGroups: [] }, sort: [] };
  }
  return {
    filter: {
      conjunction: "and",
      filterGroups: [
        {
          conjunction: "and",
          filters: [
            {
              property: "tag",
              type: "string",
              condition: {
                string: {
                  operator: "eq",
                  negation: false,
                  match: { conjunction: "or", values },
                  ignoreCase: false,
                },
              },
            },
          ],
        },
      ],
    },
    sort: [],
  };
}

/** Palette's page size ceiling. */
export const MAX_PAGE = 50;

export function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return MAX_PAGE;
  return Math.min(MAX_PAGE, Math.max(1, Math.floor(limit)));
}
