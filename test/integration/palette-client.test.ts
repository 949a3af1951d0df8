import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PaletteClient } from "../../src/palette/client.ts";
import { PaletteError } from "../../src/palette/errors.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { apiKeyClient, awsCreateBody, countRequests } from "../support/palette-client-helpers.ts";

const SEARCH = "/v1/dashboard/spectroclusters/search";

describe("Palette client against the simulator (API key)", () => {
  let sim: RunningSimulator;
  let palette: PaletteClient;
  let project: string;

  beforeAll(async () => {
    sim = await startSimulator({ clusters: 30, projects: 2, seed: 7 });
    palette = apiKeyClient(sim);
    project = sim.control.projects()[0]!;
  });

  afterAll(async () => {
    await palette?.close();
    await sim?.close();
  });

  it("sends the apiKey header and the ProjectUid header", async () => {
    sim.control.clearRequests();
    const page = await palette.searchClusters({ projectUid: project, limit: 5 });
    expect(page.items.length).toBeGreaterThan(0);
    expect(page.items.length).toBeLessThanOrEqual(5);
    const projectUids = new Set(page.items.map((c) => c.specSummary?.projectMeta?.uid));
    expect([...projectUids]).toEqual([project]);
    expect(sim.control.requests().map((r) => r.auth)).toEqual(["apiKey"]);
  });

  it("reads one cluster through every per-cluster endpoint", async () => {
    const target = sim.control.clusters(project).find((c) => c.state === "Running")!;
    expect(target).toBeDefined();
    const scope = { projectUid: project };

    const cluster = await palette.getCluster(target.uid, scope);
    expect(cluster.metadata?.uid).toBe(target.uid);
    expect(cluster.metadata?.name).toBe(target.name);

    const overview = await palette.getClusterOverview(target.uid, scope);
    expect(overview.status?.health?.state).toBe(target.health);

    expect(await palette.getClusterState(target.uid, scope)).toBe(target.state);

    const ref = cluster.spec?.cloudConfigRef;
    expect(ref?.kind).toBeTruthy();
    expect(ref?.uid).toBeTruthy();
    const config = await palette.getCloudConfig(ref!.kind!, ref!.uid!, scope);
    const pools = config.spec?.machinePoolConfig ?? [];
    expect(pools.length).toBeGreaterThan(0);
    const machines = await palette.listMachines(ref!.kind!, ref!.uid!, pools[0]!.name!, scope);
    expect(machines.length).toBeGreaterThan(0);
    expect(machines[0]?.status?.instanceState).toBeTruthy();

    const workloads = await palette.getWorkloads(target.uid, [], scope);
    expect(workloads.spec).toBeTruthy();

    const kubeconfig = await palette.getKubeconfig(target.uid, scope);
    expect(Buffer.isBuffer(kubeconfig)).toBe(true);
    expect(kubeconfig.toString("utf8")).toContain("apiVersion");

    sim.control.addEvent(target.uid, { reason: "NodeNotReady", message: "node-1 went away" });
    const events = await palette.listClusterEvents(target.uid, scope, 5);
    expect(events.length).toBeGreaterThan(0);
    expect(events.length).toBeLessThanOrEqual(5);
    expect(events.some((e) => e.reason === "NodeNotReady")).toBe(true);
  });

  it("reads the project-level lists", async () => {
    const scope = { projectUid: project };
    const alerts = await palette.listAlertComponents(scope);
    expect(alerts.map((a) => a.name)).toContain("ClusterHealth");
    const projects = await palette.listProjects();
    expect(projects.map((p) => p.metadata?.uid).sort()).toEqual([...sim.control.projects()].sort());
    expect(Array.isArray(await palette.listCloudAccounts("aws", scope))).toBe(true);
    expect(Array.isArray(await palette.listClusterProfiles(scope))).toBe(true);
    expect(Array.isArray(await palette.listClusterGroups(scope))).toBe(true);
    expect(Array.isArray(await palette.listEdgeHosts(scope))).toBe(true);
  });

  it("creates and deletes a cluster", async () => {
    sim.control.clearRequests();
    const uid = await palette.createCluster("aws", awsCreateBody("chatops-created"), {
      projectUid: project,
    });
    expect(uid).toBeTruthy();
    expect(sim.control.clusters(project).some((c) => c.uid === uid)).toBe(true);
    expect(countRequests(sim, "POST", "/v1/spectroclusters/aws")).toBe(1);
    await palette.deleteCluster(uid, { projectUid: project });
    expect(countRequests(sim, "DELETE", `/v1/spectroclusters/${uid}`)).toBe(1);
  });

  it("maps a missing cluster to a not_found PaletteError", async () => {
    const error = await palette
      .getCluster("does-not-exist", { projectUid: project })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaletteError);
    expect(error).toMatchObject({
      kind: "not_found",
      status: 404,
      endpoint: "GET /v1/spectroclusters/does-not-exist",
    });
  });

  it("finds clusters by tag, any of the tags", async () => {
    const a = sim.control.addCluster({
      name: "tagged-a",
      projectUid: project,
      provider: "aws",
      labels: { team: "zeta-h1" },
    });
    const b = sim.control.addCluster({
      name: "tagged-b",
      projectUid: project,
      provider: "gcp",
      labels: { "h1-only": "spectro__tag" },
    });
    const one = await palette.searchClusters({ projectUid: project, tags: ["team:zeta-h1"] });
    expect(one.items.map((c) => c.metadata?.uid)).toEqual([a.uid]);
    const both = await palette.searchClusters({
      projectUid: project,
      tags: ["team:zeta-h1", "h1-only"],
    });
    expect(both.items.map((c) => c.metadata?.uid).sort()).toEqual([a.uid, b.uid].sort());
    const none = await palette.searchClusters({ projectUid: project, tags: ["no-such-tag-h1"] });
    expect(none.items).toEqual([]);
    expect(none.continue).toBeUndefined();
  });

  it("counts its calls per prefix", () => {
    const stats = palette.stats();
    expect(stats.calls["/v1/dashboard"]).toBeGreaterThan(0);
    expect(stats.calls["/v1/spectroclusters"]).toBeGreaterThan(0);
    expect(stats.calls["/v1/spectroclusters/{uid}/assets"]).toBe(1);
    expect(stats.logins).toBe(0);
  });
});

describe("Palette client paging", () => {
  let sim: RunningSimulator;
  let palette: PaletteClient;

  beforeAll(async () => {
    sim = await startSimulator({ clusters: 170, projects: 1, seed: 3 });
    palette = apiKeyClient(sim, { rateLimit: false });
  });

  afterAll(async () => {
    await palette?.close();
    await sim?.close();
  });

  it("follows listmeta.continue across four pages of 50", async () => {
    const project = sim.control.projects()[0]!;
    sim.control.clearRequests();
    const uids: string[] = [];
    for await (const cluster of palette.searchAllClusters({ projectUid: project })) {
      uids.push(cluster.metadata!.uid!);
    }
    expect(uids).toHaveLength(170);
    expect(new Set(uids).size).toBe(170);
    expect(new Set(uids)).toEqual(new Set(sim.control.clusters(project).map((c) => c.uid)));
    expect(countRequests(sim, "POST", SEARCH)).toBe(4);
  });

  it("returns one page with a continue token and the total", async () => {
    const first = await palette.searchClusters({ limit: 500 });
    expect(first.items).toHaveLength(50);
    expect(first.continue).toBeTruthy();
    expect(first.total).toBe(170);
    const second = await palette.searchClusters({ limit: 50, continue: first.continue });
    expect(second.items).toHaveLength(50);
    const firstUids = new Set(first.items.map((c) => c.metadata?.uid));
    expect(second.items.some((c) => firstUids.has(c.metadata?.uid))).toBe(false);
  });
});
