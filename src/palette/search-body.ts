/**
 * Bodies of Palette's filter-summary searches (v1SearchFilterSummarySpec), in the shape of
 * the documented search example (test/fixtures/palette-api/examples/dashboard-spectroclusters-search.request.json)
 * and of the conditions Spectro Cloud's Go SDK sends. Pure.
 */

interface StringFilter {
  property: string;
  type: "string";
  condition: {
    string: {
      operator: "eq";
      negation: boolean;
      match: { conjunction: "or"; values: string[] };
      ignoreCase: false;
    };
  };
}

interface BoolFilter {
  property: string;
  type: "bool";
  condition: { bool: { value: boolean } };
}

export type SearchFilterItem = StringFilter | BoolFilter;

export interface SearchFilterBody {
  filter: {
    conjunction: "and";
    filterGroups: Array<{ conjunction: "and"; filters: SearchFilterItem[] }>;
  };
  sort: never[];
}

/** Values of one string property; `negate` asks for clusters matching none of them. */
export interface ValueCondition {
  values: readonly string[];
  negate?: boolean;
}

export interface ClusterFilter {
  /** tags as users type them: `dev` or `team:core`; a cluster carrying any of them matches */
  tags?: readonly string[];
  /** the exact (case-sensitive) cluster name */
  name?: string;
  /**
   * several exact names, any of which matches (one search confirms up to a page of clusters);
   * combined with `name` when both are given
   */
  names?: readonly string[];
  /** `status.state`, e.g. `{ values: ["Running"], negate: true }` for "not Running" */
  state?: ValueCondition;
  /** `status.health.state`, e.g. `{ values: ["Healthy"], negate: true }` */
  health?: ValueCondition;
}

export function stringFilter(property: string, values: string[], negation = false): StringFilter {
  return {
    property,
    type: "string",
    condition: {
      string: {
        operator: "eq",
        negation,
        match: { conjunction: "or", values },
        ignoreCase: false,
      },
    },
  };
}

/**
 * Palette keeps soft-deleted clusters and returns them from a search unless it is told not to,
 * which is why every cluster search carries this condition (as the Go SDK's do).
 */
export const NOT_DELETED: BoolFilter = {
  property: "isDeleted",
  type: "bool",
  condition: { bool: { value: false } },
};

const distinct = (values: readonly string[]): string[] => [
  ...new Set(values.map((value) => value.trim()).filter((value) => value.length > 0)),
];

function valueFilter(property: string, wanted: ValueCondition | undefined): StringFilter[] {
  const values = distinct(wanted?.values ?? []);
  return values.length === 0 ? [] : [stringFilter(property, values, wanted?.negate === true)];
}

/**
 * The first group holds the conditions on the cluster itself (never deleted, then name, state
 * and health), all of which must hold. Tags go verbatim into `match.values` of a group of
 * their own, which is how Palette stores tags and the documented example's shape. A bare list
 * of tags is accepted for the callers that only filter by tags.
 */
export function clusterSearchBody(
  filter: ClusterFilter | readonly string[] = {},
): SearchFilterBody {
  const wanted: ClusterFilter = Array.isArray(filter)
    ? { tags: filter as readonly string[] }
    : (filter as ClusterFilter);
  const names = distinct([...(wanted.name ? [wanted.name] : []), ...(wanted.names ?? [])]);
  const own: SearchFilterItem[] = [
    NOT_DELETED,
    ...(names.length > 0 ? [stringFilter("clusterName", names)] : []),
    ...valueFilter("clusterState", wanted.state),
    ...valueFilter("healthState", wanted.health),
  ];
  const tags = distinct(wanted.tags ?? []);
  return {
    filter: {
      conjunction: "and",
      filterGroups: [
        { conjunction: "and", filters: own },
        ...(tags.length > 0
          ? [{ conjunction: "and" as const, filters: [stringFilter("tag", tags)] }]
          : []),
      ],
    },
    sort: [],
  };
}

/** Every item in scope: for searches other than the cluster search (edge hosts). */
export function unfilteredSearchBody(): SearchFilterBody {
  return { filter: { conjunction: "and", filterGroups: [] }, sort: [] };
}

/** Palette's page size ceiling. */
export const MAX_PAGE = 50;

export function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return MAX_PAGE;
  return Math.min(MAX_PAGE, Math.max(1, Math.floor(limit)));
}
