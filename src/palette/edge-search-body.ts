import { type SearchFilterItem, stringFilter } from "./search-body.ts";

/**
 * The body of `POST /v1/dashboard/edgehosts/search` (v1SearchFilterSummarySpec). Pure.
 *
 * Filters are server-side, so a listing of unhealthy hosts at one site costs one page per 50 of
 * them, not a walk over the fleet: `name`, `tags` (`key:value` as users type them), `state`,
 * `healthState` (lower case for hosts) and `architecture`, each a string condition in a group of
 * its own, all of which must hold. Sorting: Palette 4.10 sorts hosts on the fields below and
 * answers any other with a 422; the 4.8 spec's enum (v1SearchSortFields, written for clusters)
 * shares only `healthState`, `creationTimestamp` and `lastModifiedTimestamp` with it, which is
 * why the poll sorts on `lastModifiedTimestamp` alone.
 */

export const EDGE_SORT_FIELDS = [
  "name",
  "state",
  "healthState",
  "creationTimestamp",
  "lastModifiedTimestamp",
] as const;
export type EdgeSortField = (typeof EDGE_SORT_FIELDS)[number];

export interface EdgeHostFilter {
  /** exact host name */
  name?: string;
  /** `key:value` tags; a host carrying any of them matches */
  tags?: readonly string[];
  /** `ready` | `unpaired` | `in-use`; any of them */
  states?: readonly string[];
  /** `healthy` | `unhealthy`; any of them */
  health?: readonly string[];
  architectures?: readonly string[];
}

export interface EdgeSort {
  field: EdgeSortField;
  order: "asc" | "desc";
}

export interface EdgeSearchBody {
  filter: {
    conjunction: "and";
    filterGroups: Array<{ conjunction: "and"; filters: SearchFilterItem[] }>;
  };
  sort: EdgeSort[];
}

const distinct = (values: readonly string[] | undefined): string[] => [
  ...new Set((values ?? []).map((value) => value.trim()).filter((value) => value.length > 0)),
];

export function edgeHostSearchBody(
  filter: EdgeHostFilter = {},
  sort: readonly EdgeSort[] = [],
): EdgeSearchBody {
  const conditions: Array<[string, string[]]> = [
    ["name", distinct(filter.name ? [filter.name] : [])],
    ["tags", distinct(filter.tags)],
    ["state", distinct(filter.states)],
    ["healthState", distinct(filter.health)],
    ["architecture", distinct(filter.architectures)],
  ];
  return {
    filter: {
      conjunction: "and",
      filterGroups: conditions
        .filter(([, values]) => values.length > 0)
        .map(([property, values]) => ({
          conjunction: "and" as const,
          filters: [stringFilter(property, values)],
        })),
    },
    sort: [...sort],
  };
}
