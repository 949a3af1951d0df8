import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.ts";
import type { PaletteClient } from "../../src/palette/client.ts";
import { createUndiciTransport, type WireRequest } from "../../src/palette/http.ts";
import { buildCreateBody } from "../../src/palette/providers/index.ts";
import { CLOUD_ACCOUNT_KINDS, PROVIDERS } from "../../src/palette/providers-list.ts";
import { NOT_DELETED } from "../../src/palette/search-body.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { SAMPLE_ANSWERS } from "../support/launch-answers.ts";
import { apiKeyClient, serviceAccountClient } from "../support/palette-client-helpers.ts";
import { requestDefinition, schemaErrors, templateOf } from "../support/simulator-openapi.ts";

/**
 * Every request body the real client sends, captured on the wire while it calls every method it
 * has (and creates a cluster on each of the 11 providers), validates against the request
 * definition of its operation in test/fixtures/palette-api/openapi-subset.json.
 */

const sent: WireRequest[] = [];
let sim: RunningSimulator;
let palette: PaletteClient;
let account: PaletteClient;

function recorded(client: (transport: ReturnType<typeof createUndiciTransport>) => PaletteClient) {
  const inner = createUndiciTransport(sim.url);
  return client({
    send(request) {
      sent.push(request);
      return inner.send(request);
    },
    close: () => inner.close(),
  });
}

beforeAll(async () => {
  sim = await startSimulator({ clusters: 30, projects: 2, seed: 3, clock: new ManualClock() });
  palette = recorded((transport) => apiKeyClient(sim, { transport }));
  account = recorded((transport) => serviceAccountClient(sim, { transport }));
});

afterAll(async () => {
  await palette.close();
  await account.close();
  await sim.close();
});

describe("what the client puts on the wire", () => {
  it("sends bodies that validate against the spec, for every method and all 11 providers", async () => {
    const [project] = sim.control.projects();
    const scope = { projectUid: project };
    const [cluster] = sim.control.clusters(project);
    const uid = cluster!.uid;

    await palette.searchClusters({ ...scope, tags: ["dev", "team:core"] });
    for await (const _ of palette.searchAllClusters(scope)) {
      // reading every page
    }
    const details = await palette.getCluster(uid, scope);
    await palette.getClusterOverview(uid, scope);
    await palette.getClusterState(uid, scope);
    const ref = details.spec?.cloudConfigRef;
    const config = await palette.getCloudConfig(ref!.kind!, ref!.uid!, scope);
    const pool = config.spec?.machinePoolConfig?.[0]?.name;
    await palette.listMachines(ref!.kind!, ref!.uid!, pool!, scope);
    await palette.getWorkloads(uid, ["default", "kube-system"], scope);
    await palette.getKubeconfig(uid, scope);
    await palette.listAlertComponents(scope);
    await palette.listClusterEvents(uid, scope, 5);
    for (const kind of CLOUD_ACCOUNT_KINDS) await palette.listCloudAccounts(kind, scope);
    await palette.listClusterProfiles(scope);
    await palette.listClusterGroups(scope);
    await palette.listEdgeHosts(scope);
    await palette.listProjects();
    for (const provider of PROVIDERS) {
      const built = buildCreateBody(provider, SAMPLE_ANSWERS[provider]);
      if (!built.ok)
        throw new Error(`sample answers for ${provider}: ${JSON.stringify(built.errors)}`);
      await palette.createCluster(provider, built.body, scope);
    }
    await palette.searchClusters({
      ...scope,
      name: cluster!.name,
      state: { values: ["Running"], negate: true },
      health: { values: ["Healthy"], negate: true },
      tags: ["dev"],
    });
    const withVip = buildCreateBody("edge-native", {
      ...SAMPLE_ANSWERS["edge-native"],
      name: "demo-edge-vip",
      edgeHosts: ["edge-host-1", "edge-host-2", "edge-host-3"],
      vip: "10.0.0.100",
    });
    if (!withVip.ok) throw new Error(`edge-native with a VIP: ${JSON.stringify(withVip.errors)}`);
    await palette.createCluster("edge-native", withVip.body, scope);
    await palette.deleteCluster(uid, scope);
    await account.listAlertComponents(scope);
    // the identity calls: who a key is, a user by e-mail, a key minted for them and deleted
    const me = await palette.whoAmI();
    await palette.getUser(me.userUid);
    const editor = await palette.findUserByEmail("editor@example.com");
    const minted = await palette.createApiKey(editor!.uid, new Date(Date.now() + 3_600_000), "t");
    await palette.deleteApiKey(minted.uid);

    const withBody = sent.filter((request) => request.body !== undefined);
    const checked = new Set<string>();
    for (const request of withBody) {
      const template = templateOf(request.method, request.path);
      const definition = requestDefinition(request.method.toLowerCase(), template);
      expect(
        schemaErrors(definition, JSON.parse(request.body!)),
        `${request.method} ${template}`,
      ).toEqual([]);
      checked.add(`${request.method} ${template}`);
    }
    // searches, workloads, projects, edge hosts, login, and one create per provider
    expect([...checked].sort()).toEqual(
      [
        "POST /v1/apiKeys",
        "POST /v1/auth/authenticate",
        "POST /v1/dashboard/edgehosts/search",
        "POST /v1/dashboard/projects",
        "POST /v1/dashboard/spectroclusters/search",
        "POST /v1/dashboard/spectroclusters/{uid}/workloads",
        "POST /v1/users/summary",
        ...PROVIDERS.map((provider) => `POST /v1/spectroclusters/${provider}`),
      ].sort(),
    );
  });

  it("asks every cluster search for isDeleted = false; a name look-up adds clusterName eq", () => {
    const searches = sent
      .filter((request) => request.path.startsWith("/v1/dashboard/spectroclusters/search"))
      .map((request) => JSON.parse(request.body!));
    expect(searches.length).toBeGreaterThan(2);
    for (const body of searches) {
      expect(body.filter.filterGroups[0].filters[0]).toEqual(NOT_DELETED);
    }
    const named = searches.filter((body) =>
      body.filter.filterGroups[0].filters.some(
        (filter: { property: string }) => filter.property === "clusterName",
      ),
    );
    expect(named).toHaveLength(1);
    expect(
      named[0].filter.filterGroups[0].filters.map((f: { property: string }) => f.property),
    ).toEqual(["isDeleted", "clusterName", "clusterState", "healthState"]);
    const edgeHosts = sent.filter((request) => request.path.startsWith("/v1/dashboard/edgehosts"));
    for (const request of edgeHosts) expect(request.body).not.toContain("isDeleted");
  });

  it("sends an edge-native VIP as controlPlaneEndpoint.type VIP", () => {
    const edge = sent
      .filter((request) => request.path.startsWith("/v1/spectroclusters/edge-native"))
      .map((request) => JSON.parse(request.body!));
    const endpoints = edge
      .map((body) => body.spec.cloudConfig.controlPlaneEndpoint)
      .filter(Boolean);
    expect(endpoints).toEqual([{ host: "10.0.0.100", type: "VIP" }]);
  });

  it("scopes project calls with the ProjectUid header, and create and get with the query too", () => {
    const [project] = sim.control.projects();
    // identities are the tenant's: a user, a key, never within a project
    const tenantWide = /^\/v1\/(auth|dashboard\/projects|users|apiKeys)/;
    const scoped = sent.filter((request) => !tenantWide.test(request.path));
    const identity = sent.filter((request) => /^\/v1\/(users|apiKeys)/.test(request.path));
    expect(identity).toHaveLength(5);
    for (const request of identity) expect(request.headers.ProjectUid).toBeUndefined();
    expect(scoped.length).toBeGreaterThan(20);
    for (const request of scoped) expect(request.headers.ProjectUid, request.path).toBe(project);
    const creates = sent.filter((request) =>
      /^\/v1\/spectroclusters\/[a-z-]+\?/.test(request.path),
    );
    // one per provider, and edge-native once more with a VIP
    expect(creates).toHaveLength(PROVIDERS.length + 1);
    for (const request of creates) expect(request.path).toContain(`ProjectUid=${project}`);
    const gets = sent.filter(
      (request) =>
        request.method === "GET" && /^\/v1\/spectroclusters\/[^/?]+(\?|$)/.test(request.path),
    );
    expect(gets.length).toBeGreaterThan(0);
    for (const request of gets) expect(request.path).toContain(`ProjectUid=${project}`);
  });

  it("never sends a body the validator would accept whatever it held", () => {
    const definition = requestDefinition("post", "/v1/dashboard/spectroclusters/search");
    expect(schemaErrors(definition, { filter: { filterGroups: "all" } })).not.toEqual([]);
  });
});
