import { afterEach, describe, expect, it } from "vitest";
import { createHealth, type LeaderReport } from "../../../src/http/health.ts";
import { Metrics } from "../../../src/http/metrics.ts";
import { type RunningHttpServer, startHttpServer } from "../../../src/http/server.ts";

let running: RunningHttpServer | undefined;

afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe("/readyz says who leads", () => {
  it("names this replica's role, the lease holder and its token, over real HTTP", async () => {
    let report: LeaderReport = {
      role: "follower",
      replica: "pod-b/42/abcd",
      leader: "pod-a/7/ef01",
      token: 3,
      leaseExpiresInSeconds: 9,
    };
    const health = createHealth({
      probes: { store: () => true },
      metrics: new Metrics({ defaultMetrics: false }),
      leader: async () => report,
    });
    running = await startHttpServer(0, health.routes, "127.0.0.1");
    let response = await fetch(`${running.url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: "ready",
      checks: { store: "ok" },
      leader: {
        role: "follower",
        replica: "pod-b/42/abcd",
        leader: "pod-a/7/ef01",
        token: 3,
        leaseExpiresInSeconds: 9,
      },
    });
    report = { role: "leader", replica: "pod-b/42/abcd", leader: "pod-b/42/abcd", token: 4 };
    response = await fetch(`${running.url}/readyz`);
    expect(((await response.json()) as { leader: LeaderReport }).leader.role).toBe("leader");
  });

  it("still answers readiness when the lease cannot be read", async () => {
    const health = createHealth({
      probes: { store: () => true },
      metrics: new Metrics({ defaultMetrics: false }),
      leader: async () => {
        throw new Error("connection refused");
      },
    });
    running = await startHttpServer(0, health.routes, "127.0.0.1");
    const response = await fetch(`${running.url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      status: "ready",
      leader: { role: "unknown", reason: "lease not readable: connection refused" },
    });
  });
});
