import { afterEach, describe, expect, it, vi } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { type ApiHandler, buildApiRouter } from "../../../src/simulator/api-routes.ts";
import { TokenStore } from "../../../src/simulator/auth.ts";
import { generateFleet } from "../../../src/simulator/fleet.ts";
import { seedUsers, UserDirectory } from "../../../src/simulator/identity.ts";
import { DEFAULT_LIFECYCLE } from "../../../src/simulator/lifecycle.ts";
import { RadarBook } from "../../../src/simulator/radar-routes.ts";
import { Router } from "../../../src/simulator/routes.ts";
import { SimState } from "../../../src/simulator/state.ts";

/**
 * The simulator's route table is composed from one module per group of Palette resources
 * (src/simulator/api-routes.ts). These checks keep the composition honest: every route the
 * table had when it was one file is still served, and no route is hidden behind another one
 * of the same method, so the order the modules are added in never decides which handler answers.
 */

/** Every route of the table before it was split (issue 26), identity and radar included. */
const BEFORE_SPLIT = [
  "POST /v1/apiKeys",
  "DELETE /v1/apiKeys/:uid",
  "POST /v1/auth/authenticate",
  "GET /v1/auth/refresh/:token",
  "GET /v1/cloudaccounts/:kind",
  "GET /v1/cloudconfigs/:kind/:configUid",
  "PUT /v1/cloudconfigs/:kind/:configUid/machinePools/:pool",
  "GET /v1/cloudconfigs/:kind/:configUid/machinePools/:pool/machines",
  "PUT /v1/cloudconfigs/:kind/:configUid/machinePools/:pool/machines/:machineUid/maintenance",
  "GET /v1/clustergroups/hostCluster",
  "GET /v1/clusterprofiles/:uid",
  "GET /v1/dashboard/clusterprofiles/metadata",
  "POST /v1/dashboard/edgehosts/search",
  "POST /v1/dashboard/projects",
  "GET /v1/dashboard/spectroclusters/:uid/overview",
  "POST /v1/dashboard/spectroclusters/:uid/workloads",
  "POST /v1/dashboard/spectroclusters/:uid/workloads/:kind",
  "GET /v1/dashboard/spectroclusters/repaveStatus",
  "POST /v1/dashboard/spectroclusters/search",
  "GET /v1/events/components/:objectKind/:objectUid",
  "GET /v1/projects/alerts",
  "POST /v1/spectroclusters/:provider",
  "DELETE /v1/spectroclusters/:uid",
  "GET /v1/spectroclusters/:uid",
  "GET /v1/spectroclusters/:uid/assets/kubeconfig",
  "PATCH /v1/spectroclusters/:uid/clusterConfig/lifecycleConfig",
  "GET /v1/spectroclusters/:uid/features/backup",
  "POST /v1/spectroclusters/:uid/features/backup/onDemand",
  "GET /v1/spectroclusters/:uid/features/logFetcher",
  "POST /v1/spectroclusters/:uid/features/logFetcher",
  "GET /v1/spectroclusters/:uid/k8certificates",
  "PATCH /v1/spectroclusters/:uid/k8certificates/renew",
  "GET /v1/spectroclusters/:uid/profileUpdates",
  "PATCH /v1/spectroclusters/:uid/profiles",
  "PATCH /v1/spectroclusters/:uid/repave/approve",
  "GET /v1/spectroclusters/:uid/repave/status",
  "GET /v1/spectroclusters/:uid/status",
  "GET /v1/spectroclusters/features/logFetcher/:requestUid/download",
  "GET /v1/users/:uid",
  "GET /v1/users/:uid/projects",
  "GET /v1/users/info",
  "POST /v1/users/summary",
];

interface Added {
  method: string;
  pattern: string;
  handler: ApiHandler;
}

/** Builds the table as server.ts does, recording each route as a module adds it. */
function buildRecorded(): { router: Router<ApiHandler>; added: Added[] } {
  const added: Added[] = [];
  const realAdd = Router.prototype.add;
  vi.spyOn(Router.prototype, "add").mockImplementation(function (
    this: Router<unknown>,
    method: string,
    pattern: string,
    handler: unknown,
  ) {
    added.push({ method, pattern, handler: handler as ApiHandler });
    return realAdd.call(this, method, pattern, handler);
  });
  const clock = new ManualClock(Date.UTC(2026, 0, 10, 12));
  const fleet = generateFleet({ clusters: 5, projects: 2, seed: 1, now: clock.now() });
  const state = new SimState(fleet, clock, DEFAULT_LIFECYCLE);
  const credentials = { apiKey: "k", email: "bot@example.com", org: "demo", password: "p" };
  const users = new UserDirectory(clock, seedUsers(fleet.projects.map((p) => p.uid)), {
    uid: "5e1f5e1f5e1f5e1f5e1f5e1f",
    name: "Palette bot",
    email: credentials.email,
    roles: new Map(),
    tenantAdmin: true,
  });
  const router = buildApiRouter({
    state,
    tokens: new TokenStore(clock, 60_000),
    credentials,
    users,
    radar: new RadarBook(state),
  });
  return { router, added };
}

/** A concrete path for a pattern: each `:name` becomes a value no literal segment has. */
const concrete = (pattern: string) => pattern.replace(/:(\w+)/g, (_, name) => `v-${name}-1`);

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the simulator's composed route table", () => {
  it("still serves every route it served as one file", () => {
    const { added } = buildRecorded();
    const served = added.map((route) => `${route.method} ${route.pattern}`);
    expect(served).toEqual(expect.arrayContaining(BEFORE_SPLIT));
    expect(new Set(served).size).toBe(served.length);
  });

  it("answers each route's own path with that route's handler (none hides behind another)", () => {
    const { router, added } = buildRecorded();
    expect(added.length).toBeGreaterThanOrEqual(BEFORE_SPLIT.length);
    for (const route of added) {
      const match = router.match(route.method, concrete(route.pattern));
      const handler = match && "handler" in match ? match.handler : undefined;
      expect(handler, `${route.method} ${route.pattern}`).toBe(route.handler);
    }
  });

  it("a general route added first hides a specific one: why the check above matters", () => {
    const router = new Router<ApiHandler>();
    const general: ApiHandler = () => ({ status: 200 });
    const specific: ApiHandler = () => ({ status: 204 });
    router.add("GET", "/v1/users/:uid", general);
    router.add("GET", "/v1/users/info", specific);
    const match = router.match("GET", concrete("/v1/users/info"));
    expect(match && "handler" in match ? match.handler : undefined).toBe(general);
  });
});
