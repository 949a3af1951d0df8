import { describe, expect, it } from "vitest";
import { documentedLimit } from "../../../src/palette/rate-limits.ts";
import { parseSimulatorArgs } from "../../../src/simulator/cli.ts";
import { FaultBook, RateLimitEnforcer } from "../../../src/simulator/faults.ts";

describe("FaultBook", () => {
  it("matches by prefix and method, counts down `times`, sums latency", () => {
    const book = new FaultBook();
    book.add({ pathPrefix: "/v1/dashboard", kind: "status", status: 503, times: 2 });
    book.add({ pathPrefix: "/v1", method: "GET", kind: "latency", latencyMs: 30 });
    expect(book.decide("POST", "/v1/dashboard/spectroclusters/search")).toMatchObject({
      latencyMs: 0,
      fault: { status: 503 },
    });
    expect(book.decide("GET", "/v1/dashboard/x")).toMatchObject({
      latencyMs: 30,
      fault: { status: 503 },
    });
    expect(book.decide("GET", "/v1/dashboard/x")).toEqual({ latencyMs: 30 });
    expect(book.decide("GET", "/v2/other")).toEqual({ latencyMs: 0 });
    book.clear();
    expect(book.decide("GET", "/v1/dashboard/x")).toEqual({ latencyMs: 0 });
  });
});

describe("rate limits", () => {
  it("maps paths to the documented prefixes", () => {
    expect(documentedLimit("/v1/spectroclusters/abc/assets/kubeconfig")).toEqual({
      prefix: "/v1/spectroclusters/{uid}/assets",
      perSecond: 10,
    });
    expect(documentedLimit("/v1/spectroclusters/abc")?.perSecond).toBe(50);
    expect(documentedLimit("/v1/cloudconfigs/aws/x")?.perSecond).toBe(50);
    expect(documentedLimit("/v1/dashboard/spectroclusters/search")?.perSecond).toBe(10);
    expect(documentedLimit("/v1/auth/authenticate")?.perSecond).toBe(10);
    expect(documentedLimit("/v1/clustergroups/hostCluster")).toBeUndefined();
  });

  it("allows a second's worth, then answers with a Retry-After, and refills", () => {
    let now = 0;
    const limiter = new RateLimitEnforcer(() => now);
    for (let i = 0; i < 10; i++) expect(limiter.take("ip", "/v1/dashboard/x")).toBeUndefined();
    expect(limiter.take("ip", "/v1/dashboard/x")).toBe(1);
    expect(limiter.take("other-ip", "/v1/dashboard/x")).toBeUndefined();
    expect(limiter.take("ip", "/v1/spectroclusters/u")).toBeUndefined();
    now += 100;
    expect(limiter.take("ip", "/v1/dashboard/x")).toBeUndefined();
    expect(limiter.take("ip", "/v1/dashboard/x")).toBe(1);
  });
});

describe("simulator CLI arguments", () => {
  it("parses flags with defaults and rejects bad input with a usage line", () => {
    expect(parseSimulatorArgs([])).toMatchObject({
      port: 8080,
      clusters: 40,
      projects: 3,
      seed: 1,
    });
    expect(
      parseSimulatorArgs([
        "--port",
        "0",
        "--clusters=500",
        "--seed",
        "9",
        "--animate",
        "2000",
        "--rate-limits",
      ]),
    ).toMatchObject({
      port: 0,
      clusters: 500,
      seed: 9,
      animate: 2000,
      rateLimits: true,
    });
    expect(() => parseSimulatorArgs(["--port", "x"])).toThrow(/--port/);
    expect(() => parseSimulatorArgs(["--nope"])).toThrow(/unknown option/);
    expect(() => parseSimulatorArgs(["--seed"])).toThrow(/wants a value/);
  });
});
