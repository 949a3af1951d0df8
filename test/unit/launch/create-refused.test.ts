import { describe, expect, it } from "vitest";
import { createRefused } from "../../../src/launch/submit.ts";
import { PaletteError, PaletteSchemaError } from "../../../src/palette/errors.ts";

const error = (kind: PaletteError["kind"], status: number) =>
  new PaletteError(kind, status, undefined, "x", undefined, "POST /v1/spectroclusters/aws");

describe("a create error: did Palette act?", () => {
  it("a refusal, a rate limit or 'not serving' says it did not: the name can be freed", () => {
    expect(createRefused(error("bad_request", 400))).toBe(true);
    expect(createRefused(error("forbidden", 403))).toBe(true);
    expect(createRefused(error("conflict", 409))).toBe(true);
    expect(createRefused(error("rate_limited", 429))).toBe(true);
    expect(createRefused(error("server", 503))).toBe(true);
  });

  it("a lost answer, a time-out, another 5xx or an unreadable 2xx may hide a created cluster", () => {
    expect(createRefused(error("network", 0))).toBe(false);
    expect(createRefused(error("timeout", 0))).toBe(false);
    expect(createRefused(error("timeout", 408))).toBe(false);
    expect(createRefused(error("server", 500))).toBe(false);
    expect(createRefused(error("server", 502))).toBe(false);
    expect(createRefused(error("server", 504))).toBe(false);
    expect(createRefused(new PaletteSchemaError("POST /v1/x", "uid", "missing"))).toBe(false);
    expect(createRefused(new Error("socket closed"))).toBe(false);
  });
});
