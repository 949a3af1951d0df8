import { describe, expect, it } from "vitest";
import { clampLimit, clusterSearchBody } from "../../../src/palette/search-body.ts";
import { readFixtureJson } from "../../support/fixtures.ts";

describe("clusterSearchBody", () => {
  it("builds exactly the documented example for its tags", () => {
    const example = readFixtureJson(
      "palette-api",
      "examples",
      "dashboard-spectroclusters-search.request.json",
    );
    expect(clusterSearchBody(["dev", "team:bravo-2"])).toEqual(example);
  });

  it("uses no filter groups when there are no tags", () => {
    const body = clusterSearchBody([]);
    expect(body).toEqual({ filter: { conjunction: "and", filterGroups: [] }, sort: [] });
    expect(clusterSearchBody()).toEqual(body);
    expect(clusterSearchBody(["  ", ""])).toEqual(body);
  });

  it("trims and de-duplicates tags", () => {
    const body = clusterSearchBody([" env ", "env", "team:core"]);
    const values = body.filter.filterGroups[0]?.filters[0]?.condition.string.match.values;
    expect(values).toEqual(["env", "team:core"]);
  });
});

describe("clampLimit", () => {
  it("keeps limits within 1..50", () => {
    expect([undefined, 0, 1, 20, 50, 51, 500, Number.NaN, 7.9].map(clampLimit)).toEqual([
      50, 1, 1, 20, 50, 50, 50, 50, 7,
    ]);
  });
});
