import { z } from "zod";
import { tagsOf } from "../palette/tags.ts";

/**
 * The search filter of POST /v1/dashboard/spectroclusters/search (v1SearchFilterSummarySpec),
 * evaluated the way Palette does: values inside one condition combine with `match.conjunction`,
 * filters in a group with the group's conjunction, groups with `filter.conjunction`.
 * A tag `dev` matches the label `dev: spectro__tag`; `team:core` matches the label `team: core`.
 * Like Palette, a search lists soft-deleted clusters too unless it asks for `isDeleted = false`.
 */

const conjunction = z.enum(["and", "or"]).default("and");
const stringCondition = z.object({
  operator: z.enum(["eq", "contains", "beginsWith"]).default("eq"),
  negation: z.boolean().default(false),
  ignoreCase: z.boolean().default(false),
  match: z.object({
    conjunction,
    values: z.array(z.string()).default([]),
  }),
});
const boolCondition = z.object({ value: z.boolean().default(false) });
const filterItem = z.object({
  property: z.string(),
  type: z.string().default("string"),
  condition: z
    .object({ string: stringCondition.optional(), bool: boolCondition.optional() })
    .passthrough(),
});
export const searchBodySchema = z
  .object({
    filter: z
      .object({
        conjunction,
        filterGroups: z
          .array(z.object({ conjunction, filters: z.array(filterItem).default([]) }))
          .nullish(),
      })
      .nullish(),
    sort: z
      .array(
        z.object({
          field: z.enum([
            "environment",
            "clusterName",
            "clusterState",
            "healthState",
            "creationTimestamp",
            "lastModifiedTimestamp",
          ]),
          order: z.enum(["asc", "desc"]).default("asc"),
        }),
      )
      .nullish(),
  })
  .passthrough();
export type SearchBody = z.infer<typeof searchBodySchema>;

/** What the filter can see of a cluster. */
export interface Searchable {
  name: string;
  labels: Record<string, string>;
  provider: string;
  state: string;
  health: string;
  createdAt: number;
  /** soft-deleted: Palette keeps the record (state Deleted, deletionTimestamp set) */
  deleted: boolean;
}

function matchOne(
  candidate: string,
  wanted: string,
  operator: "eq" | "contains" | "beginsWith",
  ignoreCase: boolean,
): boolean {
  const a = ignoreCase ? candidate.toLowerCase() : candidate;
  const b = ignoreCase ? wanted.toLowerCase() : wanted;
  if (operator === "contains") return a.includes(b);
  if (operator === "beginsWith") return a.startsWith(b);
  return a === b;
}

function propertyValues(item: Searchable, property: string): string[] | undefined {
  switch (property) {
    case "tag":
      return tagsOf(item.labels);
    case "clusterName":
    case "name":
      return [item.name];
    case "environment":
    case "cloudType":
      return [item.provider];
    case "clusterState":
    case "state":
      return [item.state];
    case "healthState":
      return [item.health];
    default:
      return undefined;
  }
}

export class UnsupportedFilter extends Error {}

type FilterItem = z.infer<typeof filterItem>;

function boolValue(item: Searchable, property: string): boolean | undefined {
  return property === "isDeleted" ? item.deleted : undefined;
}

function matchesFilter(item: SearchLookup, filter: FilterItem): boolean {
  if (filter.condition.bool) {
    const value = item.bool(filter.property);
    if (value === undefined) {
      throw new UnsupportedFilter(`unsupported bool property ${filter.property}`);
    }
    return value === filter.condition.bool.value;
  }
  const values = item.values(filter.property);
  if (values === undefined) throw new UnsupportedFilter(`unsupported property ${filter.property}`);
  const condition = filter.condition.string;
  if (!condition) throw new UnsupportedFilter("only string and bool conditions are supported");
  const test = (wanted: string) =>
    values.some((value) => matchOne(value, wanted, condition.operator, condition.ignoreCase));
  const wanted = condition.match.values;
  const hit =
    wanted.length === 0
      ? true
      : condition.match.conjunction === "and"
        ? wanted.every(test)
        : wanted.some(test);
  return condition.negation ? !hit : hit;
}

const combine = (mode: "and" | "or", results: boolean[]) =>
  results.length === 0 ? true : mode === "and" ? results.every(Boolean) : results.some(Boolean);

/**
 * What one searched record offers the filter: a property's string values and a bool property's
 * value, undefined for a property it does not know (a 400, as in Palette). Clusters and edge
 * hosts (src/simulator/edge/search.ts) name different properties but combine them alike.
 */
export interface SearchLookup {
  values(property: string): string[] | undefined;
  bool(property: string): boolean | undefined;
}

export function matchesLookup(item: SearchLookup, body: Pick<SearchBody, "filter">): boolean {
  const groups = body.filter?.filterGroups ?? [];
  return combine(
    body.filter?.conjunction ?? "and",
    groups.map((group) =>
      combine(
        group.conjunction,
        group.filters.map((filter) => matchesFilter(item, filter)),
      ),
    ),
  );
}

export function matchesSearch(item: Searchable, body: SearchBody): boolean {
  return matchesLookup(
    {
      values: (property) => propertyValues(item, property),
      bool: (property) => boolValue(item, property),
    },
    body,
  );
}

export function sortSearchables<T extends Searchable>(items: T[], body: SearchBody): T[] {
  const sort = body.sort ?? [];
  if (sort.length === 0) return items;
  const key = (item: T, field: string): string | number => {
    switch (field) {
      case "clusterName":
        return item.name;
      case "environment":
        return item.provider;
      case "clusterState":
        return item.state;
      case "healthState":
        return item.health;
      default:
        return item.createdAt;
    }
  };
  return [...items].sort((a, b) => {
    for (const { field, order } of sort) {
      const x = key(a, field);
      const y = key(b, field);
      if (x !== y) return (x < y ? -1 : 1) * (order === "desc" ? -1 : 1);
    }
    return 0;
  });
}
