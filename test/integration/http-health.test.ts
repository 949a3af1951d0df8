import { afterEach, describe, expect, it } from "vitest";
import { createHealth, type HealthProbes } from "../../src/http/health.ts";
import { Metrics } from "../../src/http/metrics.ts";
import type { HttpRoute } from "../../src/http/routes.ts";
import { type RunningHttpServer, startHttpServer } from "../../src/http/server.ts";

let running: RunningHttpServer | undefined;

afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function serve(probes: HealthProbes, probeTimeoutMs?: number, advisory?: string[]) {
  const metrics = new Metrics({ defaultMetrics: false });
  const health = createHealth({ probes, metrics, probeTimeoutMs, advisory });
  running = await startHttpServer(0, health.routes, "127.0.0.1");
  return { url: running.url, metrics, health };
}

describe("health endpoints over real HTTP", () => {
  it("/healthz answers 200 while alive, even when not ready", async () => {
    const { url } = await serve({ store: () => false });
    const response = await fetch(`${url}/healthz`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("/readyz answers 200 when every probe passes", async () => {
    const { url } = await serve({
      store: () => true,
      palette: () => ({ ok: true }),
      slack: async () => ({ ok: true }),
    });
    const response = await fetch(`${url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: "ready",
      checks: { store: "ok", palette: "ok", slack: "ok" },
    });
  });

  it("/readyz answers 503 naming each failing probe and its reason", async () => {
    const { url } = await serve({
      store: () => true,
      palette: () => ({ ok: false, reason: "credentials rejected (401) at the last poll" }),
      slack: () => {
        throw new Error("auth.test failed: invalid_auth for xoxb-123-456-abcdef");
      },
    });
    const response = await fetch(`${url}/readyz`);
    expect(response.status).toBe(503);
    const body = (await response.json()) as {
      status: string;
      reason: string;
      failing: Record<string, string>;
    };
    expect(body.status).toBe("not ready");
    expect(Object.keys(body.failing).sort()).toEqual(["palette", "slack"]);
    expect(body.failing.palette).toBe("credentials rejected (401) at the last poll");
    expect(body.reason).toContain("palette: credentials rejected");
    expect(body.reason).toContain("slack: probe threw: auth.test failed: invalid_auth");
    expect(JSON.stringify(body)).not.toContain("xoxb-123");
  });

  it("a probe that never answers fails readiness after the timeout", async () => {
    const { url } = await serve({ store: () => true, palette: () => new Promise(() => {}) }, 50);
    const response = await fetch(`${url}/readyz`);
    expect(response.status).toBe(503);
    const body = (await response.json()) as { failing: Record<string, string> };
    expect(body.failing).toEqual({ palette: "no answer in 50 ms" });
  });

  it("an advisory probe is reported but does not fail readiness", async () => {
    const { url } = await serve(
      { store: () => true, palette: () => ({ ok: false, reason: "401 at the last poll" }) },
      undefined,
      ["palette"],
    );
    const response = await fetch(`${url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: "degraded",
      checks: { store: "ok", palette: "401 at the last poll" },
    });
  });

  it("an advisory probe does not hide a failing critical one", async () => {
    const { url } = await serve({ store: () => false, palette: () => false }, undefined, [
      "palette",
    ]);
    const response = await fetch(`${url}/readyz`);
    expect(response.status).toBe(503);
    expect(((await response.json()) as { failing: object }).failing).toEqual({ store: "failing" });
  });

  it("/readyz turns 503 once draining", async () => {
    const { url, health } = await serve({ store: () => true });
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    health.setDraining();
    const response = await fetch(`${url}/readyz`);
    expect(response.status).toBe(503);
    expect(((await response.json()) as { failing: object }).failing).toEqual({
      shutdown: "shutting down",
    });
  });

  it("/metrics serves the Prometheus text format", async () => {
    const { url, metrics } = await serve({ store: () => true });
    metrics.commandHandled("clusters", "ok");
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const text = await response.text();
    expect(text).toContain("# TYPE palette_chatops_commands_total counter");
    expect(text).toContain('palette_chatops_commands_total{verb="clusters",outcome="ok"} 1');
  });

  it("answers 404 for unknown paths, 405 for other methods, and HEAD like GET", async () => {
    const { url } = await serve({ store: () => true });
    expect((await fetch(`${url}/nope`)).status).toBe(404);
    const post = await fetch(`${url}/healthz`, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
    expect((await fetch(`${url}/healthz?probe=1`, { method: "HEAD" })).status).toBe(200);
  });

  it("exports one route table in the shape Bolt's receivers serve", () => {
    const health = createHealth({ probes: {}, metrics: new Metrics({ defaultMetrics: false }) });
    const routes: HttpRoute[] = health.routes;
    expect(routes.map((route) => [route.path, route.method])).toEqual([
      ["/healthz", ["GET"]],
      ["/readyz", ["GET"]],
      ["/metrics", ["GET"]],
    ]);
  });
});
