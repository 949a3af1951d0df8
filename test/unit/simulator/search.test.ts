import { describe, expect, it } from "vitest";
import { clusterSearchBody } from "../../../src/palette/search-body.ts";
import { tagsOf } from "../../../src/palette/tags.ts";
import {
  matchesSearch,
  type Searchable,
  type SearchBody,
  searchBodySchema,
  sortSearchables,
  UnsupportedFilter,
} from "../../../src/simulator/search.ts";

const cluster = (
  name: string,
  labels: Record<string, string>,
  extra: Partial<Searchable> = {},
): Searchable => ({
  name,
  labels,
  provider: "aws",
  state: "Running",
  health: "Healthy",
  createdAt: 0,
  deleted: false,
  ...extra,
});

function tagBody(
  values: string[],
  options: { match?: "and" | "or"; negation?: boolean } = {},
): SearchBody {
  return searchBodySchema.parse({
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
                  negation: options.negation ?? false,
                  match: { conjunction: options.match ?? "or", values },
                  ignoreCase: false,
                },
              },
            },
          ],
        },
      ],
    },
    sort: [],
  });
}

const devCore = cluster("a", { dev: "spectro__tag", team: "core" });
const prodCore = cluster("b", { prod: "spectro__tag", team: "core" });
const devData = cluster("c", { dev: "spectro__tag", team: "data" });
const valueDev = cluster("d", { dev: "true" });

describe("tag matching", () => {
  it("a plain tag matches only the label with value spectro__tag", () => {
    const body = tagBody(["dev"]);
    expect(matchesSearch(devCore, body)).toBe(true);
    expect(matchesSearch(prodCore, body)).toBe(false);
    expect(matchesSearch(valueDev, body)).toBe(false);
  });

  it("key:value matches the label key=value", () => {
    const body = tagBody(["team:core"]);
    expect([devCore, prodCore, devData].map((c) => matchesSearch(c, body))).toEqual([
      true,
      true,
      false,
    ]);
    expect(matchesSearch(valueDev, tagBody(["dev:true"]))).toBe(true);
  });

  it("values combine with match.conjunction; negation inverts", () => {
    expect(matchesSearch(devData, tagBody(["dev", "team:core"], { match: "or" }))).toBe(true);
    expect(matchesSearch(devData, tagBody(["dev", "team:core"], { match: "and" }))).toBe(false);
    expect(matchesSearch(devCore, tagBody(["dev", "team:core"], { match: "and" }))).toBe(true);
    expect(matchesSearch(devCore, tagBody(["dev"], { negation: true }))).toBe(false);
  });

  it("filters in a group and groups combine with their conjunctions", () => {
    const twoFilters = tagBody(["dev"]);
    const group = twoFilters.filter?.filterGroups?.[0];
    const second = structuredClone(group?.filters[0]);
    if (!group || !second?.condition.string) throw new Error("fixture");
    second.condition.string.match.values = ["team:core"];
    group.filters.push(second);
    expect(matchesSearch(devCore, twoFilters)).toBe(true);
    expect(matchesSearch(devData, twoFilters)).toBe(false);
    group.conjunction = "or";
    expect(matchesSearch(devData, twoFilters)).toBe(true);
  });

  it("no filter groups (or no body) matches everything", () => {
    expect(matchesSearch(prodCore, searchBodySchema.parse({}))).toBe(true);
    expect(
      matchesSearch(
        prodCore,
        searchBodySchema.parse({ filter: { conjunction: "and", filterGroups: [] } }),
      ),
    ).toBe(true);
  });

  it("renders tags the way users type them", () => {
    expect(tagsOf({ dev: "spectro__tag", team: "core" })).toEqual(["dev", "team:core"]);
  });

  it("sorts by the requested field", () => {
    const body = searchBodySchema.parse({ sort: [{ field: "clusterName", order: "desc" }] });
    expect(sortSearchables([devCore, devData, prodCore], body).map((c) => c.name)).toEqual([
      "c",
      "b",
      "a",
    ]);
  });
});

describe("cluster conditions as the bot sends them", () => {
  const live = cluster("web", {}, { state: "Running", health: "Healthy" });
  const sick = cluster("web", {}, { state: "Running", health: "UnHealthy" });
  const booting = cluster("api", {}, { state: "Provisioning", health: "Unknown" });
  const gone = cluster("web", {}, { state: "Deleted", health: "Unknown", deleted: true });
  const all = [live, sick, booting, gone];
  const matching = (filter: Parameters<typeof clusterSearchBody>[0]) => {
    const body = searchBodySchema.parse(clusterSearchBody(filter));
    return all.filter((c) => matchesSearch(c, body));
  };

  it("lists soft-deleted clusters unless the search asks isDeleted = false", () => {
    expect(all.filter((c) => matchesSearch(c, searchBodySchema.parse({})))).toContain(gone);
    expect(matching({})).toEqual([live, sick, booting]);
    const deletedOnly = searchBodySchema.parse({
      filter: {
        conjunction: "and",
        filterGroups: [
          {
            conjunction: "and",
            filters: [
              { property: "isDeleted", type: "bool", condition: { bool: { value: true } } },
            ],
          },
        ],
      },
    });
    expect(all.filter((c) => matchesSearch(c, deletedOnly))).toEqual([gone]);
  });

  it("filters by exact name, state and health, negation honoured", () => {
    expect(matching({ name: "web" })).toEqual([live, sick]);
    expect(matching({ name: "WEB" })).toEqual([]);
    expect(matching({ state: { values: ["Running"], negate: true } })).toEqual([booting]);
    expect(matching({ health: { values: ["Healthy"], negate: true } })).toEqual([sick, booting]);
    expect(
      matching({
        state: { values: ["Running"] },
        health: { values: ["Healthy"], negate: true },
      }),
    ).toEqual([sick]);
  });

  it("refuses properties it does not know, as before, instead of guessing", () => {
    const body = searchBodySchema.parse({
      filter: {
        conjunction: "and",
        filterGroups: [
          {
            conjunction: "and",
            filters: [
              { property: "isArchived", type: "bool", condition: { bool: { value: false } } },
            ],
          },
        ],
      },
    });
    expect(() => matchesSearch(live, body)).toThrow(UnsupportedFilter);
  });
});
