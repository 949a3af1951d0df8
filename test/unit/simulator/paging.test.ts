import { describe, expect, it } from "vitest";
import {
  BadPageRequest,
  decodeContinue,
  encodeContinue,
  pageRequest,
  paginate,
} from "../../../src/simulator/paging.ts";

const items = Array.from({ length: 117 }, (_, i) => i);

describe("paging", () => {
  it("encodes the continue token like the documented listmeta example", () => {
    expect(encodeContinue(50, 117)).toBe("eyJvZmZzZXQiOjUwLCJjb3VudCI6MTE3LCJ0b2tlbiI6IiJ9");
    expect(decodeContinue("eyJvZmZzZXQiOjUwLCJjb3VudCI6MTE3LCJ0b2tlbiI6IiJ9")).toBe(50);
  });

  it("walks every item exactly once and ends with an empty continue", () => {
    const seen: number[] = [];
    let query = new URLSearchParams({ limit: "50" });
    for (let i = 0; i < 10; i++) {
      const page = paginate(items, pageRequest(query));
      seen.push(...page.items);
      expect(page.listmeta.count).toBe(117);
      if (!page.listmeta.continue) break;
      query = new URLSearchParams({ limit: "50", continue: page.listmeta.continue });
    }
    expect(seen).toEqual(items);
  });

  it("first page matches the documented fragment", () => {
    const page = paginate(items, pageRequest(new URLSearchParams({ limit: "50" })));
    expect(page.listmeta).toEqual({
      continue: "eyJvZmZzZXQiOjUwLCJjb3VudCI6MTE3LCJ0b2tlbiI6IiJ9",
      count: 117,
      limit: 50,
      offset: 50,
    });
  });

  it("clamps limit to 50 and defaults to 50", () => {
    expect(pageRequest(new URLSearchParams({ limit: "500" })).limit).toBe(50);
    expect(pageRequest(new URLSearchParams()).limit).toBe(50);
    expect(pageRequest(new URLSearchParams({ limit: "7" })).limit).toBe(7);
  });

  it("rejects garbage tokens and limits", () => {
    expect(() => pageRequest(new URLSearchParams({ continue: "not-base64-json" }))).toThrow(
      BadPageRequest,
    );
    expect(() => pageRequest(new URLSearchParams({ limit: "-3" }))).toThrow(BadPageRequest);
    expect(() => decodeContinue(Buffer.from('{"offset":-1}').toString("base64"))).toThrow(
      BadPageRequest,
    );
  });
});
