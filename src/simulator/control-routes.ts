import { z } from "zod";
import { PROVIDERS } from "../palette/providers-list.ts";
import { addEdgeAuditRoute, type EdgeAuditInput } from "./edge/audits.ts";
import type { EdgeBook } from "./edge/book.ts";
import { addEdgeControlRoutes } from "./edge/control-routes.ts";
import type { FaultBook } from "./faults.ts";
import { ApiError, type Reply } from "./http-util.ts";
import type { UserDirectory } from "./identity.ts";
import { Router } from "./routes.ts";
import type { SimState } from "./state.ts";
import type { RecordedRequest, SimulatorControl } from "./types.ts";

/** `/__sim/...`: the `control` API over HTTP, for the CLI, the demo and out-of-process tests. */

export type ControlHandler = (
  params: Record<string, string>,
  body: unknown,
  query: URLSearchParams,
) => Reply;

export interface ControlDeps {
  state: SimState;
  faults: FaultBook;
  requests: RecordedRequest[];
  users: UserDirectory;
  addAudit: SimulatorControl["addAudit"];
  /** the edge fleet: its routes under /__sim/edge (src/simulator/edge/control-routes.ts) */
  edge?: EdgeBook;
  /** an audit entry on an edge host (src/simulator/edge/audits.ts) */
  addEdgeAudit?: (hostUid: string, input: EdgeAuditInput) => void;
}

const faultSchema = z.object({
  pathPrefix: z.string().startsWith("/"),
  method: z.string().optional(),
  kind: z.enum(["status", "latency", "reset", "malformed", "late", "garbled"]),
  status: z.number().int().min(100).max(599).optional(),
  retryAfterSec: z.number().nonnegative().optional(),
  latencyMs: z.number().nonnegative().optional(),
  times: z.number().int().positive().optional(),
});

const newClusterSchema = z.object({
  name: z.string().min(1),
  projectUid: z.string().min(1),
  provider: z.enum(PROVIDERS),
  labels: z.record(z.string(), z.string()).optional(),
});

/** an entry in Palette's audit by another user, the system or a service (tests, the demo) */
const auditSchema = z.object({
  clusterUid: z.string().min(1),
  actionType: z.enum(["create", "update", "delete", "publish", "deploy", "activity", "action"]),
  actionMsg: z.string(),
  email: z.string().min(1).optional(),
  actorType: z.enum(["user", "system", "service"]).optional(),
  serviceName: z.string().optional(),
  at: z.number().optional(),
});

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) {
    throw new ApiError(400, "InvalidRequest", z.prettifyError(parsed.error).replaceAll("\n", " "));
  }
  return parsed.data;
}

export function buildControlRouter(deps: ControlDeps): Router<ControlHandler> {
  const { state, faults, requests } = deps;
  const router = new Router<ControlHandler>();
  const known = (uid: string) => {
    if (!state.cluster(uid))
      throw new ApiError(404, "ResourceNotFound", `Cluster '${uid}' not found`);
    return uid;
  };
  router.add("GET", "/__sim/projects", () => ({
    status: 200,
    body: { projects: state.fleet.projects.map((p) => ({ uid: p.uid, name: p.name })) },
  }));
  router.add("GET", "/__sim/clusters", (_params, _body, query) => {
    const projectUid = query.get("projectUid") ?? undefined;
    state.sync();
    const clusters = state
      .clusters(projectUid, query.get("includeDeleted") === "true")
      .map((cluster) => state.view(cluster));
    return { status: 200, body: { clusters } };
  });
  router.add("POST", "/__sim/clusters", (_params, body) => {
    const input = parse(newClusterSchema, body);
    try {
      return { status: 201, body: state.view(state.addCluster(input)) };
    } catch (error) {
      throw new ApiError(400, "InvalidRequest", (error as Error).message);
    }
  });
  router.add("POST", "/__sim/clusters/:uid/state", (params, body) => {
    const { state: next } = parse(z.object({ state: z.string().min(1) }), body);
    state.setState(known(params.uid ?? ""), next);
    return { status: 200, body: state.view(state.requireCluster(params.uid ?? "")) };
  });
  router.add("POST", "/__sim/clusters/:uid/health", (params, body) => {
    const input = parse(
      z.object({ health: z.string().min(1), reason: z.string().optional() }),
      body,
    );
    state.setHealth(known(params.uid ?? ""), input.health, input.reason);
    return { status: 200, body: state.view(state.requireCluster(params.uid ?? "")) };
  });
  router.add("POST", "/__sim/clusters/:uid/events", (params, body) => {
    const input = parse(
      z.object({ reason: z.string().min(1), message: z.string(), severity: z.string().optional() }),
      body,
    );
    state.addEvent(known(params.uid ?? ""), input);
    return { status: 201, body: { ok: true } };
  });
  router.add("POST", "/__sim/audits", (_params, body) => {
    const input = parse(auditSchema, body);
    known(input.clusterUid);
    try {
      deps.addAudit(input);
    } catch (error) {
      throw new ApiError(400, "InvalidRequest", (error as Error).message);
    }
    return { status: 201, body: { ok: true } };
  });
  router.add("GET", "/__sim/faults", () => ({ status: 200, body: { faults: faults.list() } }));
  router.add("POST", "/__sim/faults", (_params, body) => {
    const fault = parse(faultSchema, body);
    faults.add(fault);
    return { status: 201, body: { faults: faults.list() } };
  });
  router.add("DELETE", "/__sim/faults", () => {
    faults.clear();
    return { status: 204 };
  });
  router.add("GET", "/__sim/users", () => ({
    status: 200,
    body: {
      users: deps.users.users().map((user) => ({
        uid: user.uid,
        name: user.name,
        email: user.email,
        tenantAdmin: user.tenantAdmin,
        roles: Object.fromEntries(user.roles),
      })),
    },
  }));
  router.add("POST", "/__sim/users/keys", (_params, body) => {
    const input = parse(
      z.object({ email: z.string().min(1), expiresAt: z.number().optional() }),
      body,
    );
    const user = deps.users.byEmail(input.email);
    if (!user) throw new ApiError(404, "ResourceNotFound", `User '${input.email}' not found`);
    return { status: 201, body: deps.users.issueKey(user.uid, input.expiresAt) };
  });
  if (deps.edge) addEdgeControlRoutes(router, deps.edge);
  if (deps.addEdgeAudit) addEdgeAuditRoute(router, deps.addEdgeAudit);
  router.add("GET", "/__sim/requests", () => ({ status: 200, body: { requests } }));
  router.add("DELETE", "/__sim/requests", () => {
    requests.length = 0;
    return { status: 204 };
  });
  return router;
}
