import { afterEach, describe, expect, it, vi } from "vitest";
import { ManualClock } from "../../src/clock.ts";
import { clusterSearchBody } from "../../src/palette/search-body.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";

/** Faults, rate limits, request recording and the /__sim control API over HTTP. */

let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(options: Parameters<typeof startSimulator>[0] = {}) {
  sim = await startSimulator({ clusters: 30, seed: 2, clock: new ManualClock(), ...options });
  return sim;
}

const search = (s: RunningSimulator, headers: Record<string, string> = {}) =>
  fetch(`${s.url}/v1/dashboard/spectroclusters/search?limit=5`, {
    method: "POST",
    headers: { apiKey: s.credentials.apiKey, "content-type": "application/json", ...headers },
    body: "{}",
  });

describe("faults", () => {
  it("status faults answer v1Error with Retry-After on 429, for `times` requests", async () => {
    const s = await start();
    s.control.addFault({
      pathPrefix: "/v1/dashboard",
      kind: "status",
      status: 429,
      retryAfterSec: 3,
      times: 1,
    });
    const limited = await search(s);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("3");
    expect(await limited.json()).toMatchObject({ code: "TooManyRequests" });
    expect((await search(s)).status).toBe(200);
  });

  it("late handles the request, then holds its answer back: a client that gives up sooner never hears it", async () => {
    const s = await start();
    const added = await fetch(`${s.url}/__sim/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        pathPrefix: "/v1/dashboard",
        method: "POST",
        kind: "late",
        latencyMs: 400,
        times: 1,
      }),
    });
    expect(added.status).toBe(201);
    s.control.clearRequests();
    // the client gives up at its own time-out (the abort's reason), not when the server answers
    await expect(
      fetch(`${s.url}/v1/dashboard/spectroclusters/search?limit=5`, {
        method: "POST",
        headers: { apiKey: s.credentials.apiKey, "content-type": "application/json" },
        body: "{}",
        signal: AbortSignal.timeout(100),
      }),
    ).rejects.toThrow(/aborted|timeout/i);
    // handled before the client gave up: recorded with the answer it was going to get
    await vi.waitFor(() => expect(s.control.requests()).toHaveLength(1), { timeout: 5_000 });
    expect(s.control.requests()).toEqual([
      expect.objectContaining({
        method: "POST",
        path: "/v1/dashboard/spectroclusters/search",
        status: 200,
      }),
    ]);
    expect((await search(s)).status).toBe(200);
  });

  it("reset destroys the socket; malformed answers 200 with a wrong shape; latency delays", async () => {
    const s = await start();
    s.control.addFault({ pathPrefix: "/v1/dashboard", kind: "reset", times: 1 });
    await expect(search(s)).rejects.toThrow();
    s.control.addFault({ pathPrefix: "/v1/dashboard", kind: "malformed", times: 1 });
    const bad = await search(s);
    expect(bad.status).toBe(200);
    expect(typeof ((await bad.json()) as { items: unknown }).items).toBe("string");
    s.control.addFault({
      pathPrefix: "/v1/dashboard",
      method: "POST",
      kind: "latency",
      latencyMs: 120,
      times: 1,
    });
    const started = performance.now();
    expect((await search(s)).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(100);
    s.control.addFault({ pathPrefix: "/v1", kind: "status", status: 503 });
    expect((await search(s)).status).toBe(503);
    s.control.clearFaults();
    expect((await search(s)).status).toBe(200);
  });

  it("enforceRateLimits answers 429 past 10 req/s on /v1/dashboard", async () => {
    const s = await start({ enforceRateLimits: true });
    const statuses: number[] = [];
    for (let i = 0; i < 14; i++) statuses.push((await search(s)).status);
    expect(statuses.slice(0, 10).every((status) => status === 200)).toBe(true);
    expect(statuses).toContain(429);
    const limited = await search(s);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // another prefix has its own budget
    const uid = s.control.clusters()[0]?.uid;
    const other = await fetch(`${s.url}/v1/spectroclusters/${uid}`, {
      headers: { apiKey: s.credentials.apiKey },
    });
    expect(other.status).toBe(200);
  });
});

describe("request log and control over HTTP", () => {
  it("records method, path, status and credential kind", async () => {
    const s = await start();
    await search(s);
    await fetch(`${s.url}/v1/projects/alerts`);
    expect(s.control.requests()).toEqual([
      {
        method: "POST",
        path: "/v1/dashboard/spectroclusters/search",
        status: 200,
        auth: "apiKey",
        caller: "bot@example.com",
      },
      { method: "GET", path: "/v1/projects/alerts", status: 401, auth: "none" },
    ]);
    const overHttp = await (await fetch(`${s.url}/__sim/requests`)).json();
    expect((overHttp as { requests: unknown[] }).requests).toHaveLength(2);
    s.control.clearRequests();
    expect(s.control.requests()).toEqual([]);
  });

  it("/__sim endpoints mirror control: clusters, state, health, events, faults", async () => {
    const s = await start();
    const post = (path: string, body: unknown) =>
      fetch(`${s.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const listed = (await (await fetch(`${s.url}/__sim/clusters`)).json()) as {
      clusters: { uid: string; state: string }[];
    };
    expect(listed.clusters).toHaveLength(30);
    const target = s.control
      .clusters()
      .find((c) => c.state === "Running" && c.health === "Healthy");
    if (!target) throw new Error("fixture");
    expect(
      (
        await post(`/__sim/clusters/${target.uid}/health`, {
          health: "UnHealthy",
          reason: "disk full",
        })
      ).status,
    ).toBe(200);
    expect(s.control.clusters().find((c) => c.uid === target.uid)?.health).toBe("UnHealthy");
    const overview = (await (
      await fetch(`${s.url}/v1/dashboard/spectroclusters/${target.uid}/overview`, {
        headers: { apiKey: s.credentials.apiKey },
      })
    ).json()) as { status: { health: { state: string; conditions: { message: string }[] } } };
    expect(overview.status.health.state).toBe("UnHealthy");
    expect(overview.status.health.conditions[0]?.message).toBe("disk full");
    expect((await post(`/__sim/clusters/${target.uid}/state`, { state: "Deleting" })).status).toBe(
      200,
    );
    expect(
      (await post(`/__sim/clusters/${target.uid}/events`, { reason: "Probe", message: "hi" }))
        .status,
    ).toBe(201);
    const events = (await (
      await fetch(`${s.url}/v1/events/components/spectrocluster/${target.uid}`, {
        headers: { apiKey: s.credentials.apiKey },
      })
    ).json()) as { items: { reason: string }[] };
    expect(events.items.map((e) => e.reason).slice(0, 3)).toEqual([
      "Probe",
      "ClusterDeleting",
      "ClusterUnhealthy",
    ]);
    expect((await post("/__sim/clusters/nope/state", { state: "Running" })).status).toBe(404);
    expect((await post(`/__sim/clusters/${target.uid}/state`, {})).status).toBe(400);

    expect(
      (await post("/__sim/faults", { pathPrefix: "/v1/projects", kind: "status", status: 500 }))
        .status,
    ).toBe(201);
    const failing = await fetch(`${s.url}/v1/projects/alerts`, {
      headers: { apiKey: s.credentials.apiKey },
    });
    expect(failing.status).toBe(500);
    expect((await fetch(`${s.url}/__sim/faults`, { method: "DELETE" })).status).toBe(204);
    expect(
      (await fetch(`${s.url}/v1/projects/alerts`, { headers: { apiKey: s.credentials.apiKey } }))
        .status,
    ).toBe(200);

    const added = await post("/__sim/clusters", {
      name: "extra",
      projectUid: s.control.projects()[0],
      provider: "gke",
      labels: { dev: "spectro__tag" },
    });
    expect(added.status).toBe(201);
    expect(s.control.clusters()).toHaveLength(31);
  });

  it("control.addCluster adds a Running cluster visible to search; bad input throws", async () => {
    const s = await start();
    const project = s.control.projects()[1] as string;
    const added = s.control.addCluster({
      name: "added-one",
      projectUid: project,
      provider: "maas",
      labels: { qa: "spectro__tag" },
    });
    expect(added).toMatchObject({ state: "Running", health: "Healthy", provider: "maas" });
    const body = clusterSearchBody(["qa"]);
    const found = (await (
      await fetch(`${s.url}/v1/dashboard/spectroclusters/search`, {
        method: "POST",
        headers: {
          apiKey: s.credentials.apiKey,
          projectuid: project,
          "content-type": "application/json",
        },
        body: JSON.stringify(body),
      })
    ).json()) as { items: { metadata: { uid: string } }[] };
    expect(found.items.map((i) => i.metadata.uid)).toEqual([added.uid]);
    expect(() =>
      s.control.addCluster({ name: "x", projectUid: project, provider: "nope" }),
    ).toThrow(/provider/);
    expect(() => s.control.addCluster({ name: "x", projectUid: "nope", provider: "aws" })).toThrow(
      /project/,
    );
  });

  it("animateEveryMs starts the animator timer (some event appears)", async () => {
    const s = await start({ animateEveryMs: 10 });
    const eventCount = async () => {
      let total = 0;
      for (const c of s.control.clusters()) {
        const answer = await fetch(`${s.url}/v1/events/components/spectrocluster/${c.uid}`, {
          headers: { apiKey: s.credentials.apiKey },
        });
        total += ((await answer.json()) as { listmeta: { count: number } }).listmeta.count;
      }
      return total;
    };
    const before = await eventCount();
    // every tick adds at least one event; wait (bounded) until one has happened
    let after = before;
    for (let i = 0; i < 100 && after === before; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      after = await eventCount();
    }
    expect(after).toBeGreaterThan(before);
  });
});
