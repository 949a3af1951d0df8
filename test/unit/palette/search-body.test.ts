import { describe, expect, it } from "vitest";
import {
  clampLimit,
  clusterSearchBody,
  NOT_DELETED,
  type SearchFilterBody,
  unfilteredSearchBody,
} from "../../../src/palette/search-body.ts";
import { readFixtureJson } from "../../support/fixtures.ts";

const notDeletedGroup = { conjunction: "and", filters: [NOT_DELETED] };

/** The filters of the body's first group, which holds the conditions on the cluster itself. */
const ownFilters = (body: SearchFilterBody) => body.filter.filterGroups[0]?.filters;

function tagValues(body: SearchFilterBody): string[] | undefined {
  const condition = body.filter.filterGroups[1]?.filters[0]?.condition;
  return condition && "string" in condition ? condition.string.match.values : undefined;
}

describe("clusterSearchBody", () => {
  it("builds exactly the documented example for its tags, plus isDeleted = false", () => {
    const example = readFixtureJson<SearchFilterBody>(
      "palette-api",
      "examples",
      "dashboard-spectroclusters-search.request.json",
    );
    expect(clusterSearchBody(["dev", "team:bravo-2"])).toEqual({
      ...example,
      filter: {
        ...example.filter,
        filterGroups: [notDeletedGroup, ...example.filter.filterGroups],
      },
    });
    expect(clusterSearchBody({ tags: ["dev", "team:bravo-2"] })).toEqual(
      clusterSearchBody(["dev", "team:bravo-2"]),
    );
  });

  it("asks for live clusters only when there are no tags", () => {
    const body = clusterSearchBody([]);
    expect(body).toEqual({
      filter: { conjunction: "and", filterGroups: [notDeletedGroup] },
      sort: [],
    });
    expect(NOT_DELETED).toEqual({
      property: "isDeleted",
      type: "bool",
      condition: { bool: { value: false } },
    });
    expect(clusterSearchBody()).toEqual(body);
    expect(clusterSearchBody({})).toEqual(body);
    expect(clusterSearchBody(["  ", ""])).toEqual(body);
  });

  it("trims and de-duplicates tags", () => {
    const body = clusterSearchBody([" env ", "env", "team:core"]);
    expect(tagValues(body)).toEqual(["env", "team:core"]);
  });

  it("looks a name up with a clusterName eq condition beside isDeleted", () => {
    expect(ownFilters(clusterSearchBody({ name: " web-prod " }))).toEqual([
      NOT_DELETED,
      {
        property: "clusterName",
        type: "string",
        condition: {
          string: {
            operator: "eq",
            negation: false,
            match: { conjunction: "or", values: ["web-prod"] },
            ignoreCase: false,
          },
        },
      },
    ]);
    expect(clusterSearchBody({ name: "  " })).toEqual(clusterSearchBody());
  });

  it("looks several names up in one clusterName condition (any of them)", () => {
    const [, byName] = ownFilters(clusterSearchBody({ names: ["web-1", " web-2 ", "web-1"] }))!;
    expect(byName).toEqual({
      property: "clusterName",
      type: "string",
      condition: {
        string: {
          operator: "eq",
          negation: false,
          match: { conjunction: "or", values: ["web-1", "web-2"] },
          ignoreCase: false,
        },
      },
    });
    expect(clusterSearchBody({ name: "web-1", names: ["web-3"] })).toEqual(
      clusterSearchBody({ names: ["web-1", "web-3"] }),
    );
    expect(clusterSearchBody({ names: [] })).toEqual(clusterSearchBody());
  });

  it("filters by state and health, negated when asked", () => {
    const body = clusterSearchBody({
      state: { values: ["Running"], negate: true },
      health: { values: ["Healthy", "Healthy", ""], negate: true },
      tags: ["dev"],
    });
    expect(ownFilters(body)?.slice(1)).toEqual([
      {
        property: "clusterState",
        type: "string",
        condition: {
          string: {
            operator: "eq",
            negation: true,
            match: { conjunction: "or", values: ["Running"] },
            ignoreCase: false,
          },
        },
      },
      {
        property: "healthState",
        type: "string",
        condition: {
          string: {
            operator: "eq",
            negation: true,
            match: { conjunction: "or", values: ["Healthy"] },
            ignoreCase: false,
          },
        },
      },
    ]);
    expect(tagValues(body)).toEqual(["dev"]);
    const positive = clusterSearchBody({ state: { values: ["Running", "Updating"] } });
    expect(ownFilters(positive)?.[1]?.condition).toEqual({
      string: {
        operator: "eq",
        negation: false,
        match: { conjunction: "or", values: ["Running", "Updating"] },
        ignoreCase: false,
      },
    });
    expect(clusterSearchBody({ state: { values: [] }, health: { values: [" "] } })).toEqual(
      clusterSearchBody(),
    );
  });
});

describe("unfilteredSearchBody", () => {
  it("has no filter groups: every item in scope", () => {
    expect(unfilteredSearchBody()).toEqual({
      filter: { conjunction: "and", filterGroups: [] },
      sort: [],
    });
  });
});

describe("clampLimit", () => {
  it("keeps limits within 1..50", () => {
    expect([undefined, 0, 1, 20, 50, 51, 500, Number.NaN, 7.9].map(clampLimit)).toEqual([
      50, 1, 1, 20, 50, 50, 50, 50, 7,
    ]);
  });
});
