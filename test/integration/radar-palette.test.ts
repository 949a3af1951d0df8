import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.ts";
import type { PaletteClient } from "../../src/palette/client.ts";
import { RENEW_MS } from "../../src/simulator/radar-routes.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { apiKeyClient } from "../support/palette-client-helpers.ts";
import { responseDefinition, schemaErrors } from "../support/simulator-openapi.ts";

/**
 * The radar's Palette reads (issue 28) against the simulator: each body conforms to the spec's
 * definition in the OpenAPI subset, and the client reads what the simulator holds.
 */

const DAY = 86_400_000;
const clock = new ManualClock(Date.UTC(2026, 10, 1, 12));
let sim: RunningSimulator;
let client: PaletteClient;

async function raw(method: string, path: string): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${sim.url}${path}`, {
    method,
    headers: { apiKey: sim.credentials.apiKey, accept: "application/json" },
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  sim = await startSimulator({ clusters: 120, projects: 2, seed: 11, clock });
  client = apiKeyClient(sim, { clock, rateLimit: false });
});
afterAll(async () => {
  await client.close();
  await sim.close();
});

describe("radar reads", () => {
  it("k8certificates conforms to v1MachineCertificates; renew moves every expiry a year on", async () => {
    const [cluster] = sim.control.clusters();
    if (!cluster) throw new Error("no cluster");
    const near = clock.now() + 20 * DAY;
    sim.control.setCertificateExpiry(cluster.uid, near);
    const answer = await raw("GET", `/v1/spectroclusters/${cluster.uid}/k8certificates`);
    expect(answer.status).toBe(200);
    expect(
      schemaErrors(
        responseDefinition("get", "/v1/spectroclusters/{uid}/k8certificates"),
        answer.json,
      ),
    ).toEqual([]);
    const before = await client.getCertificates(cluster.uid, {});
    const leaves = before.filter((cert) => !cert.authority);
    expect(leaves.length).toBeGreaterThan(0);
    expect(leaves.every((cert) => cert.expiresAt === near)).toBe(true);

    await client.renewCertificates(cluster.uid, {});
    // not yet: Palette takes a few seconds
    expect(
      (await client.getCertificates(cluster.uid, {})).find((c) => !c.authority)?.expiresAt,
    ).toBe(near);
    clock.advance(RENEW_MS);
    const after = (await client.getCertificates(cluster.uid, {})).filter((c) => !c.authority);
    expect(after[0]?.expiresAt).toBe(clock.now() + 365 * DAY);
  });

  it("the pending repave list pages, conforms to v1SpectroClustersSummary and lists only Pending", async () => {
    const clusters = sim.control.clusters();
    const pending = clusters.slice(0, 60).map((cluster) => cluster.uid);
    for (const uid of pending) sim.control.setRepavePending(uid, ["pack values changed"]);
    const first = await raw(
      "GET",
      "/v1/dashboard/spectroclusters/repaveStatus?repaveState=Pending",
    );
    expect(
      schemaErrors(
        responseDefinition("get", "/v1/dashboard/spectroclusters/repaveStatus"),
        first.json,
      ),
    ).toEqual([]);
    const seen: string[] = [];
    let next: string | undefined;
    let pages = 0;
    do {
      const page = await client.pendingRepavesPage({}, next);
      seen.push(...page.items.map((item) => item.uid));
      next = page.continue;
      pages += 1;
    } while (next);
    expect(pages).toBe(2);
    expect(seen.sort()).toEqual([...pending].sort());
  });

  it("profileUpdates conforms and reads the newer versions", async () => {
    const cluster = sim.control.clusters()[1];
    if (!cluster) throw new Error("no cluster");
    sim.control.setProfileUpdates(cluster.uid, [{ uid: "p-next", name: "base", version: "2.0.0" }]);
    const answer = await raw("GET", `/v1/spectroclusters/${cluster.uid}/profileUpdates`);
    expect(
      schemaErrors(
        responseDefinition("get", "/v1/spectroclusters/{uid}/profileUpdates"),
        answer.json,
      ),
    ).toEqual([]);
    expect(await client.getProfileUpdates(cluster.uid, {})).toEqual([
      { uid: "p-next", name: "base", version: "2.0.0" },
    ]);
  });

  it("backup history: the scheduled runs newest first, with Palette's failure message", async () => {
    const cluster = sim.control.clusters()[2];
    if (!cluster) throw new Error("no cluster");
    sim.control.setBackupLocation(cluster.uid, "s3-backups");
    sim.control.setBackupRuns(cluster.uid, "0 3 * * *", [
      { name: "older", state: "Completed", at: clock.now() - 2 * DAY },
      { name: "newest", state: "Failed", at: clock.now() - DAY, msg: "bucket <gone>" },
    ]);
    const answer = await raw("GET", `/v1/spectroclusters/${cluster.uid}/features/backup`);
    expect(
      schemaErrors(
        responseDefinition("get", "/v1/spectroclusters/{uid}/features/backup"),
        answer.json,
      ),
    ).toEqual([]);
    const history = await client.getBackupHistory(cluster.uid, {});
    expect(history.schedule).toBe("0 3 * * *");
    expect(history.location).toBe("s3-backups");
    expect(history.runs.map((run) => [run.name, run.state])).toEqual([
      ["newest", "Failed"],
      ["older", "Completed"],
    ]);
    expect(history.runs[0]?.message).toBe("bucket <gone>");
  });
});
