import { describe, expect, it } from "vitest";
import {
  describeEndpoint,
  errorFromException,
  errorFromResponse,
  kindForStatus,
} from "../../../src/palette/error-map.ts";
import { describeForUser, PaletteError } from "../../../src/palette/errors.ts";

describe("kindForStatus", () => {
  it("maps statuses to kinds", () => {
    expect(
      [400, 401, 403, 404, 409, 422, 429, 500, 502, 503].map((status) => kindForStatus(status)),
    ).toEqual([
      "bad_request",
      "unauthorized",
      "forbidden",
      "not_found",
      "conflict",
      "bad_request",
      "rate_limited",
      "server",
      "server",
      "server",
    ]);
  });
});

describe("errorFromResponse", () => {
  it("takes code, message and ref from Palette's error body", () => {
    const body = JSON.stringify({
      code: "ResourceNotFound",
      message: "cluster abc not found",
      ref: "ref-1",
    });
    const error = errorFromResponse(404, body, "GET /v1/spectroclusters/abc");
    expect(error).toBeInstanceOf(PaletteError);
    expect(error).toMatchObject({
      kind: "not_found",
      status: 404,
      code: "ResourceNotFound",
      message: "cluster abc not found",
      ref: "ref-1",
      endpoint: "GET /v1/spectroclusters/abc",
    });
  });

  it("copes with a body that is not JSON", () => {
    const error = errorFromResponse(502, "<html>Bad gateway</html>", "GET /v1/x");
    expect(error).toMatchObject({ kind: "server", status: 502, code: undefined });
    expect(error.message).toBe("HTTP 502");
    expect(describeForUser(error)).toContain("internal error");
  });
});

describe("errorFromException", () => {
  it("classifies time-outs, including nested causes", () => {
    const headers = Object.assign(new Error("x"), { code: "UND_ERR_HEADERS_TIMEOUT" });
    expect(errorFromException(headers, "GET /v1/x").kind).toBe("timeout");
    const nested = new Error("fetch failed", {
      cause: Object.assign(new Error("y"), { code: "UND_ERR_CONNECT_TIMEOUT" }),
    });
    expect(errorFromException(nested, "GET /v1/x")).toMatchObject({ kind: "timeout", status: 0 });
  });

  it("classifies resets and refusals as network errors without leaking details", () => {
    const reset = Object.assign(new Error("socket hang up at 10.0.0.1 apiKey=abc"), {
      code: "ECONNRESET",
    });
    const error = errorFromException(reset, "GET /v1/x");
    expect(error).toMatchObject({ kind: "network", code: "ECONNRESET", status: 0 });
    expect(error.message).not.toContain("apiKey");
    expect(errorFromException(new Error("?"), "GET /v1/x").kind).toBe("network");
  });
});

describe("describeEndpoint", () => {
  it("masks the token in the refresh path and drops the query", () => {
    expect(describeEndpoint("GET", "/v1/auth/refresh/eyJhbGciOi.secret.part")).toBe(
      "GET /v1/auth/refresh/***",
    );
    expect(describeEndpoint("GET", "/v1/spectroclusters/abc?ProjectUid=p1")).toBe(
      "GET /v1/spectroclusters/abc",
    );
  });
});
