import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { PaletteClient } from "../../src/palette/client.ts";
import { PaletteError, PaletteSchemaError } from "../../src/palette/errors.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { apiKeyClient, awsCreateBody, countRequests } from "../support/palette-client-helpers.ts";

const SEARCH = "/v1/dashboard/spectroclusters/search";

describe("Palette client under injected faults", () => {
  let sim: RunningSimulator;
  let palette: PaletteClient;
  let slept: number[];
  let project: string;
  let uid: string;

  beforeAll(async () => {
    sim = await startSimulator({ clusters: 10, projects: 1 });
    project = sim.control.projects()[0]!;
    uid = sim.control.clusters(project)[0]!.uid;
    // rate limiting off so every recorded sleep is a retry wait
    palette = apiKeyClient(sim, {
      rateLimit: false,
      retries: 3,
      sleep: async (ms) => {
        slept.push(ms);
      },
    });
  });

  beforeEach(() => {
    slept = [];
    sim.control.clearFaults();
    sim.control.clearRequests();
  });

  afterAll(async () => {
    await palette?.close();
    await sim?.close();
  });

  it("honours Retry-After on 429 and then succeeds", async () => {
    sim.control.addFault({
      pathPrefix: "/v1/dashboard",
      kind: "status",
      status: 429,
      retryAfterSec: 2,
      times: 2,
    });
    const page = await palette.searchClusters({ projectUid: project });
    expect(page.items.length).toBeGreaterThan(0);
    expect(slept).toEqual([2000, 2000]);
    expect(sim.control.requests().map((r) => r.status)).toEqual([429, 429, 200]);
  });

  it("retries 500s with backoff and succeeds", async () => {
    sim.control.addFault({
      pathPrefix: "/v1/spectroclusters",
      kind: "status",
      status: 500,
      times: 2,
    });
    await expect(palette.getCluster(uid, { projectUid: project })).resolves.toMatchObject({
      metadata: { uid },
    });
    expect(slept).toHaveLength(2);
    expect(slept.every((ms) => ms >= 0 && ms <= 20)).toBe(true);
  });

  it("retries a reset connection and succeeds", async () => {
    sim.control.addFault({ pathPrefix: "/v1/dashboard", kind: "reset", times: 1 });
    const page = await palette.searchClusters({ projectUid: project });
    expect(page.items.length).toBeGreaterThan(0);
    expect(slept).toHaveLength(1);
  });

  it("gives a clear PaletteError after the retry bound", async () => {
    sim.control.addFault({ pathPrefix: "/v1/dashboard", kind: "status", status: 503 });
    const error = await palette.searchClusters({ projectUid: project }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaletteError);
    expect(error).toMatchObject({
      kind: "server",
      status: 503,
      endpoint: "POST /v1/dashboard/spectroclusters/search",
    });
    expect(countRequests(sim, "POST", SEARCH)).toBe(4);

    sim.control.clearFaults();
    sim.control.addFault({ pathPrefix: "/v1/dashboard", kind: "reset" });
    const network = await palette.searchClusters({ projectUid: project }).catch((e: unknown) => e);
    expect(network).toMatchObject({ kind: "network", status: 0 });
  });

  it("does not resend a create after a reset", async () => {
    sim.control.addFault({
      pathPrefix: "/v1/spectroclusters/aws",
      method: "POST",
      kind: "reset",
      times: 1,
    });
    const error = await palette
      .createCluster("aws", awsCreateBody("once-only"), { projectUid: project })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "network" });
    expect(countRequests(sim, "POST", "/v1/spectroclusters/aws")).toBe(1);
  });

  it("turns a malformed body into a PaletteSchemaError", async () => {
    sim.control.addFault({ pathPrefix: "/v1/dashboard", kind: "malformed", times: 1 });
    const error = await palette.searchClusters({ projectUid: project }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaletteSchemaError);
    expect((error as PaletteSchemaError).endpoint).toBe(
      "POST /v1/dashboard/spectroclusters/search",
    );
    expect((error as PaletteSchemaError).field).toBeTruthy();
    expect(slept).toEqual([]);
  });

  it("times out a slow answer as a timeout error", async () => {
    const impatient = apiKeyClient(sim, { rateLimit: false, retries: 0, bodyTimeoutMs: 150 });
    try {
      sim.control.addFault({
        pathPrefix: "/v1/projects",
        kind: "latency",
        latencyMs: 1_000,
        times: 1,
      });
      const error = await impatient
        .listAlertComponents({ projectUid: project })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PaletteError);
      expect(error).toMatchObject({ kind: "timeout", status: 0 });
    } finally {
      await impatient.close();
    }
  });
});
