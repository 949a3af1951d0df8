import type { ApiHandler } from "./api-context.ts";
import type { TokenStore } from "./auth.ts";
import { addAuthRoutes } from "./auth-routes.ts";
import { addClusterFeatureRoutes } from "./cluster-feature-routes.ts";
import { addClusterReadRoutes } from "./cluster-read-routes.ts";
import { addDay2Routes } from "./day2-routes.ts";
import { EdgeBook } from "./edge/book.ts";
import { addEdgeRoutes, edgeHostEvents } from "./edge/routes.ts";
import type { UserDirectory } from "./identity.ts";
import { addIdentityRoutes } from "./identity-routes.ts";
import { addLaunchRoutes } from "./launch-routes.ts";
import { addMachinePoolRoutes } from "./machine-pool-routes.ts";
import { addProjectRoutes } from "./project-routes.ts";
import { addRadarRoutes, type RadarBook } from "./radar-routes.ts";
import { Router } from "./routes.ts";
import type { SimState } from "./state.ts";
import type { SimulatorCredentials } from "./types.ts";

/**
 * Every Palette endpoint the bot uses, on the real paths with the real response shapes: one
 * module per group of Palette resources, composed here so server.ts has one route table.
 * - auth-routes.ts: log in, refresh a token
 * - cluster-read-routes.ts: search, one cluster, status, overview, workloads, kubeconfig, events
 * - project-routes.ts: projects with their health counts, alert kinds
 * - launch-routes.ts: create a cluster; cloud accounts, profiles, cluster groups
 * - edge/routes.ts: the edge fleet: host search (the launch form lists it too), one host, a
 *   cluster's hosts, tags, registration tokens; a host's events through the events route
 * - machine-pool-routes.ts: cloud configs, machines, cordon/uncordon, pool size
 * - day2-routes.ts: delete, repave, profile versions (upgrade), pause/resume
 * - cluster-feature-routes.ts: on-demand backups, log fetcher
 * - identity-routes.ts, radar-routes.ts: users and API keys; certificates, repaves, updates
 * (server.ts adds GET /v1/audits from audit.ts.) No two routes of one method match the same
 * path, except `/v1/users/info` before `/v1/users/{uid}` inside identity-routes.ts, so the
 * order of the modules does not decide which handler answers
 * (test/unit/simulator/api-routes.test.ts).
 */

export type { ApiContext, ApiHandler } from "./api-context.ts";
export { validateCreate } from "./create-body.ts";

export interface ApiDeps {
  state: SimState;
  tokens: TokenStore;
  credentials: SimulatorCredentials;
  users: UserDirectory;
  /** the radar's facts (certificates, backup runs, profile updates): src/simulator/radar-routes.ts */
  radar: RadarBook;
  /** the edge fleet (src/simulator/edge/book.ts); default one seeded from the fleet */
  edge?: EdgeBook;
}

export function buildApiRouter(deps: ApiDeps): Router<ApiHandler> {
  const { state, tokens, credentials } = deps;
  const router = new Router<ApiHandler>();
  addIdentityRoutes(router, { state, users: deps.users, credentials });
  addRadarRoutes(router, { state, book: deps.radar });
  addAuthRoutes(router, { tokens, credentials });
  const edge = deps.edge ?? new EdgeBook(state.fleet, state.clock);
  addEdgeRoutes(router, edge);
  addClusterReadRoutes(router, state, edgeHostEvents(edge));
  addProjectRoutes(router, state);
  addLaunchRoutes(router, state);
  addMachinePoolRoutes(router, state);
  addDay2Routes(router, state);
  addClusterFeatureRoutes(router, { state, radar: deps.radar });
  return router;
}
