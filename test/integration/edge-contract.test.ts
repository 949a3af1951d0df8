import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.ts";
import type { PaletteClient } from "../../src/palette/client.ts";
import { edgeHostPages } from "../../src/palette/edge-api.ts";
import { edgeHostSearchBody } from "../../src/palette/edge-search-body.ts";
import { PaletteError } from "../../src/palette/errors.ts";
import { createUndiciTransport } from "../../src/palette/http.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { apiKeyClient } from "../support/palette-client-helpers.ts";
import {
  loadExample,
  openapi,
  requestDefinition,
  responseDefinition,
  schemaErrors,
  templateOf,
} from "../support/simulator-openapi.ts";

/**
 * The edge fleet's contract (issue 39): the bot's own client calls every edge read it has
 * against the simulator, and every request body and every answer on the wire is checked against
 * the operation's definition in test/fixtures/palette-api/openapi-subset.json (taken unchanged
 * from palette-sdk-go's spec). Then the failure paths a careless client or simulator would get
 * wrong: a sort field hosts are not sorted on (422), an unknown filter (400), a host outside the
 * scope (404), a person's projects, a deleted host, and the device-side writes nobody may call.
 */

const MINUTE = 60_000;
const clock = new ManualClock(Date.UTC(2026, 0, 10, 12));
let sim: RunningSimulator;
let palette: PaletteClient;
const wire: Array<{ method: string; path: string; body?: string; status: number; answer: string }> =
  [];

beforeAll(async () => {
  sim = await startSimulator({
    clusters: 44,
    projects: 2,
    seed: 11,
    clock,
    edgeHosts: 180,
    edgeFlapping: 0,
  });
  const inner = createUndiciTransport(sim.url);
  palette = apiKeyClient(sim, {
    transport: {
      async send(request) {
        const response = await inner.send(request);
        wire.push({
          method: request.method,
          path: request.path,
          ...(request.body !== undefined ? { body: request.body } : {}),
          status: response.status,
          answer: response.body.toString("utf8"),
        });
        return response;
      },
      close: () => inner.close(),
    },
  });
});

afterAll(async () => {
  await palette.close();
  await sim.close();
});

async function raw(
  method: string,
  path: string,
  options: { body?: unknown; project?: string; apiKey?: string } = {},
) {
  const response = await fetch(`${sim.url}${path}`, {
    method,
    headers: {
      apiKey: options.apiKey ?? sim.credentials.apiKey,
      ...(options.project ? { ProjectUid: options.project } : {}),
      ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as unknown) : undefined };
}

const EDGE_PATHS = [
  "/v1/dashboard/edgehosts/search",
  "/v1/edgehosts/{uid}",
  "/v1/spectroclusters/{uid}/edge-native/edgeHosts",
  "/v1/edgehosts/tags",
  "/v1/edgehosts/tokens",
  "/v1/events/components/{objectKind}/{objectUid}",
];

describe("the edge paths of the spec subset", () => {
  it("holds every edge path the bot reads, and none of the device-side writes", () => {
    for (const path of EDGE_PATHS) expect(openapi.paths[path], path).toBeDefined();
    const device = Object.keys(openapi.paths).filter((path) =>
      /\/v1\/edgehosts\/(register|\{uid\}\/(health|tunnelStatus|hostPairingKey))$/.test(path),
    );
    expect(device).toEqual([]);
    // only reads on the host paths: PUT and DELETE of a host are Palette's, not the bot's
    expect(Object.keys(openapi.paths["/v1/edgehosts/{uid}"] ?? {}).sort()).toEqual([
      "get",
      "parameters",
    ]);
  });

  it("the client's search bodies match v1SearchFilterSummarySpec; a 4.10-only sort field would not", () => {
    const definition = requestDefinition("post", "/v1/dashboard/edgehosts/search");
    const body = edgeHostSearchBody(
      {
        name: "edge-00001",
        tags: ["site:store-0001"],
        states: ["in-use"],
        health: ["unhealthy"],
        architectures: ["arm64"],
      },
      [{ field: "lastModifiedTimestamp", order: "desc" }],
    );
    expect(schemaErrors(definition, body)).toEqual([]);
    // why the poll sorts on lastModifiedTimestamp only: `name` is 4.10's, not in 4.8's enum
    expect(
      schemaErrors(definition, edgeHostSearchBody({}, [{ field: "name", order: "asc" }])),
    ).not.toEqual([]);
  });
  it("the shared edge examples match their definitions", () => {
    const search = requestDefinition("post", "/v1/dashboard/edgehosts/search");
    expect(schemaErrors(search, loadExample("dashboard-edgehosts-search.request.json"))).toEqual(
      [],
    );
    expect(
      schemaErrors(
        responseDefinition("get", "/v1/edgehosts/{uid}"),
        loadExample("edgehost-device.response.json"),
      ),
    ).toEqual([]);
    expect(
      schemaErrors(
        responseDefinition("get", "/v1/edgehosts/tokens"),
        loadExample("edgehosts-tokens.response.json"),
      ),
    ).toEqual([]);
    // not vacuous: upper-case health, as clusters have it, is not an edge host's
    const device = structuredClone(loadExample("edgehost-device.response.json")) as {
      status: { health: { state: string } };
    };
    device.status.health.state = "Healthy";
    expect(schemaErrors("v1EdgeHostDevice", device)).not.toEqual([]);
  });
});

describe("the client against the simulator, every exchange checked against the spec", () => {
  it("reads the fleet, one host, a cluster's hosts, the tags, the tokens and a host's events", async () => {
    wire.length = 0;
    const [first] = sim.control.projects();
    const scope = { projectUid: first };

    let count = 0;
    let pages = 0;
    for await (const page of edgeHostPages(palette, { projectUid: first })) {
      pages += 1;
      count += page.length;
      expect(page.length).toBeLessThanOrEqual(50);
    }
    const inProject = sim.control.edge.fleet.edgeHosts.filter((h) => h.projectUid === first);
    expect(count).toBe(inProject.length);
    expect(pages).toBe(Math.ceil(inProject.length / 50));

    const unhealthy = await palette.searchEdgeHosts({ ...scope, health: ["unhealthy"] });
    for (const host of unhealthy.items) expect(host.health).toBe("unhealthy");

    const inUse = inProject.find((host) => host.inUseClusterUid);
    expect(inUse).toBeDefined();
    const detail = await palette.getEdgeHost(inUse!.uid, scope);
    expect(detail).toMatchObject({
      uid: inUse!.uid,
      name: inUse!.name,
      projectUid: first,
      state: "in-use",
      clusters: [{ uid: inUse!.inUseClusterUid }],
    });
    expect(detail.tags.some((tag) => tag.startsWith("site:"))).toBe(true);
    expect(detail.agentVersion).toMatch(/^v\d/);
    expect(detail.cpuCores).toBeGreaterThan(0);
    expect(detail.memoryMB).toBeGreaterThan(0);
    expect(["amd64", "arm64"]).toContain(detail.architecture);

    const ofCluster = await palette.clusterEdgeHosts(inUse!.inUseClusterUid!, scope);
    expect(ofCluster.map((host) => host.uid)).toContain(inUse!.uid);

    const tags = await palette.edgeHostTags(scope);
    expect(tags).toContain(detail.tags.find((tag) => tag.startsWith("site:")));

    const tokens = await palette.listEdgeTokens({});
    expect(tokens.length).toBeGreaterThan(0);
    expect(tokens.some((token) => !token.active)).toBe(true);
    // the token itself is a secret: Palette sends it, the client never keeps it
    expect(JSON.stringify(tokens)).not.toContain("sim-edge-token");

    sim.control.edge.setHealth(inUse!.uid, "unhealthy", "link down at the store");
    const events = await palette.edgeHostEventsPage(inUse!.uid, scope);
    expect(events.items[0]).toMatchObject({
      reason: "EdgeHostUnhealthy",
      message: "link down at the store",
    });
    sim.control.edge.setHealth(inUse!.uid, "healthy");

    const operations = new Set<string>();
    for (const exchange of wire) {
      const template = templateOf(exchange.method, exchange.path);
      operations.add(`${exchange.method} ${template}`);
      expect(exchange.status, `${exchange.method} ${exchange.path}`).toBe(200);
      if (exchange.body !== undefined) {
        const request = requestDefinition(exchange.method.toLowerCase(), template);
        expect(schemaErrors(request, JSON.parse(exchange.body))).toEqual([]);
      }
      const response = responseDefinition(exchange.method.toLowerCase(), template);
      expect(schemaErrors(response, JSON.parse(exchange.answer)), exchange.path).toEqual([]);
    }
    expect([...operations].sort()).toEqual([
      "GET /v1/edgehosts/tags",
      "GET /v1/edgehosts/tokens",
      "GET /v1/edgehosts/{uid}",
      "GET /v1/events/components/{objectKind}/{objectUid}",
      "GET /v1/spectroclusters/{uid}/edge-native/edgeHosts",
      "POST /v1/dashboard/edgehosts/search",
    ]);
  });

  it("pages at most 50 with continue, whatever limit is asked, and every page conforms", async () => {
    const big = await raw("POST", "/v1/dashboard/edgehosts/search?limit=500", {
      body: edgeHostSearchBody(),
    });
    expect(big.status).toBe(200);
    const body = big.json as {
      items: unknown[];
      listmeta: { limit: number; continue: string; count: number };
    };
    expect(body.items).toHaveLength(50);
    expect(body.listmeta.limit).toBe(50);
    expect(body.listmeta.continue).not.toBe("");
    expect(body.listmeta.count).toBe(sim.control.edge.fleet.edgeHosts.length);
    expect(schemaErrors("v1EdgeHostsSearchSummary", body)).toEqual([]);
  });
});

describe("the search answers as Palette does", () => {
  it("sorts on lastModifiedTimestamp, so a site's outage comes first", async () => {
    const [first] = sim.control.projects();
    sim.control.edge.addSite("store-9001", first!, 12);
    clock.advance(5 * MINUTE);
    expect(sim.control.edge.setSiteHealth("store-9001", "unhealthy")).toBe(12);
    const page = await palette.searchEdgeHosts({
      projectUid: first,
      sort: [{ field: "lastModifiedTimestamp", order: "desc" }],
      limit: 12,
    });
    expect(page.items.map((host) => host.tags.includes("site:store-9001"))).toEqual(
      Array(12).fill(true),
    );
    for (const host of page.items) {
      expect(host.health).toBe("unhealthy");
      expect(host.lastModifiedAt).toBe(new Date(clock.now()).toISOString());
    }
    const bySite = await palette.searchEdgeHosts({
      projectUid: first,
      tags: ["site:store-9001"],
      health: ["unhealthy"],
    });
    expect(bySite.total).toBe(12);
    sim.control.edge.setSiteHealth("store-9001", "healthy");
    const after = await palette.searchEdgeHosts({
      projectUid: first,
      tags: ["site:store-9001"],
      health: ["unhealthy"],
    });
    expect(after.items).toEqual([]);
  });

  it("answers 422 to a sort field hosts are not sorted on, and the client says so", async () => {
    const answer = await raw("POST", "/v1/dashboard/edgehosts/search", {
      body: { filter: { conjunction: "and", filterGroups: [] }, sort: [{ field: "clusterName" }] },
    });
    expect(answer.status).toBe(422);
    expect(schemaErrors("v1Error", answer.json)).toEqual([]);
    const failure = await palette
      .searchEdgeHosts({ sort: [{ field: "environment" as never, order: "asc" }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PaletteError);
    expect((failure as PaletteError).status).toBe(422);
  });

  it("answers 400 to a filter property it does not know", async () => {
    const answer = await raw("POST", "/v1/dashboard/edgehosts/search", {
      body: {
        filter: {
          conjunction: "and",
          filterGroups: [
            {
              conjunction: "and",
              filters: [
                {
                  property: "clusterName",
                  type: "string",
                  condition: { string: { operator: "eq", match: { values: ["x"] } } },
                },
              ],
            },
          ],
        },
      },
    });
    expect(answer.status).toBe(400);
  });
});

describe("scope, people and deletions", () => {
  it("a host outside the request's project, or a host's events without one, is not found", async () => {
    const [first, second] = sim.control.projects();
    // a name no host of the other project has (the four ready hosts per project share theirs)
    const host = sim.control.edge.fleet.edgeHosts.find(
      (h) => h.projectUid === first && h.name.startsWith("edge-0"),
    )!;
    expect((await raw("GET", `/v1/edgehosts/${host.uid}`, { project: second })).status).toBe(404);
    expect((await raw("GET", `/v1/edgehosts/${host.uid}`, { project: first })).status).toBe(200);
    expect((await raw("GET", `/v1/events/components/edgehost/${host.uid}`)).status).toBe(404);
    const other = await raw("POST", "/v1/dashboard/edgehosts/search", {
      project: second,
      body: edgeHostSearchBody({ name: host.name }),
    });
    expect((other.json as { items: unknown[] }).items).toEqual([]);
  });

  it("tenant-wide, a person sees only the hosts of their projects", async () => {
    const [first] = sim.control.projects();
    const key = sim.control.issueUserKey("solo@example.com");
    const answer = await raw("POST", "/v1/dashboard/edgehosts/search?limit=50", {
      apiKey: key,
      body: edgeHostSearchBody(),
    });
    expect(answer.status).toBe(200);
    const body = answer.json as {
      items: Array<{ spec: { projectMeta: { uid: string } } }>;
      listmeta: { count: number };
    };
    expect(body.listmeta.count).toBe(
      sim.control.edge.fleet.edgeHosts.filter((h) => h.projectUid === first).length,
    );
    for (const item of body.items) expect(item.spec.projectMeta.uid).toBe(first);
  });

  it("a host deleted from Palette is gone from the search and its GET is a 404", async () => {
    const [first] = sim.control.projects();
    const host = sim.control.edge.fleet.edgeHosts.find((h) => h.projectUid === first)!;
    const deleted = await fetch(`${sim.url}/__sim/edge/hosts/${host.uid}`, { method: "DELETE" });
    expect(deleted.status).toBe(204);
    const read = await palette
      .getEdgeHost(host.uid, { projectUid: first })
      .catch((e: unknown) => e);
    expect((read as PaletteError).status).toBe(404);
    const search = await palette.searchEdgeHosts({ projectUid: first, name: host.name });
    expect(search.items).toEqual([]);
  });

  it("the device-side writes are not served: the bot could not call them if it tried", async () => {
    const host = sim.control.edge.fleet.edgeHosts[0]!;
    for (const [method, path] of [
      ["POST", "/v1/edgehosts/register"],
      ["PATCH", `/v1/edgehosts/${host.uid}/health`],
      ["PATCH", `/v1/edgehosts/${host.uid}/tunnelStatus`],
      ["PATCH", `/v1/edgehosts/${host.uid}/hostPairingKey`],
    ] as const) {
      const answer = await raw(method, path, { body: {} });
      expect([404, 405], `${method} ${path}`).toContain(answer.status);
    }
    // and the bot's client, through every read above, sent none of them
    expect(
      wire.filter((exchange) => exchange.method !== "GET" && exchange.method !== "POST"),
    ).toEqual([]);
    expect(wire.filter((exchange) => exchange.path.startsWith("/v1/edgehosts/register"))).toEqual(
      [],
    );
  });
});

describe("the simulated fleet", () => {
  it("has sites as tags, most hosts in use, a few unpaired, and a site outage on demand over HTTP", async () => {
    const views = sim.control.edge.fleet.edgeHosts.map((host) => sim.control.edge.view(host));
    const inUse = views.filter((view) => view.state === "in-use").length;
    expect(inUse / views.length).toBeGreaterThan(0.6);
    expect(views.some((view) => view.state === "unpaired")).toBe(true);
    const site = views.find((view) => view.state === "in-use")!.life.site;
    const outage = await fetch(`${sim.url}/__sim/edge/sites/${site}/outage`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(outage.status).toBe(200);
    const { hosts } = (await outage.json()) as { hosts: number };
    expect(hosts).toBeGreaterThan(0);
    const listed = await fetch(`${sim.url}/__sim/edge/hosts?site=${site}`);
    const body = (await listed.json()) as { hosts: Array<{ health: string }> };
    expect(body.hosts.map((host) => host.health)).toEqual(Array(hosts).fill("unhealthy"));
    const unknown = await fetch(`${sim.url}/__sim/edge/sites/no-such-site/outage`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(unknown.status).toBe(404);
  });

  it("a flapping host drops and recovers on the clock, and says so in its events", async () => {
    const flappy = await startSimulator({
      clusters: 11,
      projects: 1,
      seed: 5,
      clock,
      edgeHosts: 60,
      edgeFlapping: 1,
    });
    try {
      const host = flappy.control.edge.fleet.edgeHosts.find((h) => h.health === "healthy")!;
      const seen = new Set<string>();
      for (let minute = 0; minute < 240; minute++) {
        seen.add(flappy.control.edge.view(host).health);
        clock.advance(MINUTE);
      }
      expect([...seen].sort()).toEqual(["healthy", "unhealthy"]);
      const reasons = flappy.control.edge.events(host.uid).map((event) => event.reason);
      expect(reasons).toContain("EdgeHostUnhealthy");
      expect(reasons).toContain("EdgeHostHealthy");
    } finally {
      await flappy.close();
    }
  });
});
