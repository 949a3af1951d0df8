import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { systemClock } from "../clock.ts";
import { type ApiContext, buildApiRouter } from "./api-routes.ts";
import { AuditBook, addAuditEntry, addAuditRoutes, auditWrite } from "./audit.ts";
import { authenticate, TokenStore } from "./auth.ts";
import { buildControlRouter } from "./control-routes.ts";
import { addEdgeHostAudit, type EdgeAuditInput } from "./edge/audits.ts";
import { EdgeBook } from "./edge/book.ts";
import { FaultBook, RateLimitEnforcer } from "./faults.ts";
import { generateFleet } from "./fleet.ts";
import { ApiError, errorReply, type Reply, readJson, send } from "./http-util.ts";
import { seedUsers, UserDirectory } from "./identity.ts";
import { DEFAULT_LIFECYCLE, type LifecycleTimes, startAnimator } from "./lifecycle.ts";
import { RadarBook } from "./radar-routes.ts";
import { refusal } from "./rbac.ts";
import { SimState } from "./state.ts";
import type {
  Fault,
  RecordedRequest,
  RunningSimulator,
  SimulatorControl,
  SimulatorCredentials,
  SimulatorOptions,
} from "./types.ts";

export const DEFAULT_CREDENTIALS: SimulatorCredentials = {
  apiKey: "sim-api-key",
  email: "bot@example.com",
  org: "demo",
  password: "sim-password",
};

/** A 200 whose body has the wrong shape everywhere a client might look. */
const MALFORMED_BODY = {
  items: "malformed",
  listmeta: "malformed",
  metadata: "malformed",
  spec: "malformed",
  status: "malformed",
  components: "malformed",
  summaries: "malformed",
  Authorization: 42,
  uid: 42,
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the Palette API simulator (see src/simulator/README.md). */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const clock = options.clock ?? systemClock;
  const credentials: SimulatorCredentials = { ...DEFAULT_CREDENTIALS, ...options.credentials };
  const times: LifecycleTimes = { ...DEFAULT_LIFECYCLE, ...options.lifecycle };
  const clusters = options.clusters ?? 40;
  const fleet = generateFleet({
    clusters,
    projects: options.projects ?? 3,
    seed: options.seed ?? 1,
    now: clock.now(),
    softDeleted: options.softDeleted ?? (clusters >= 10 ? 3 : 0),
    ...(options.unhealthy !== undefined ? { unhealthy: options.unhealthy } : {}),
  });
  const state = new SimState(fleet, clock, times);
  if (options.churnPerMinute) {
    // churn flips health towards the seeded share of unhealthy clusters (7 of every 12.5 %)
    const unhealthy = (options.unhealthy ?? 0.125) * (0.07 / 0.125);
    state.startChurn({ perMinute: options.churnPerMinute, targetUnhealthy: unhealthy });
  }
  const tokens = new TokenStore(clock, options.tokenTtlMs ?? 15 * 60_000);
  const faults = new FaultBook();
  /** requests a `hold` fault keeps until control.release() */
  const holding: Array<() => void> = [];
  const limiter = options.enforceRateLimits ? new RateLimitEnforcer() : undefined;
  const requests: RecordedRequest[] = [];
  const users = new UserDirectory(clock, seedUsers(fleet.projects.map((p) => p.uid)), {
    uid: "5e1f5e1f5e1f5e1f5e1f5e1f",
    name: "Palette bot",
    email: credentials.email,
    roles: new Map(),
    tenantAdmin: true,
  });
  const radar = new RadarBook(state, options.lifecycle?.renewMs);
  const edge = new EdgeBook(fleet, clock, {
    ...(options.edgeHosts !== undefined ? { hosts: options.edgeHosts } : {}),
    ...(options.edgeFlapping !== undefined ? { flapping: options.edgeFlapping } : {}),
  });
  const api = buildApiRouter({ state, tokens, credentials, users, radar, edge });
  // Palette's audit log: writes through the API are entered with their caller (src/simulator/audit.ts)
  const audits = new AuditBook();
  addAuditRoutes(api, { book: audits, state });
  const addAudit: SimulatorControl["addAudit"] = (input) => {
    addAuditEntry(audits, state, (email) => users.byEmail(email), input);
  };
  const addEdgeAudit = (hostUid: string, input: EdgeAuditInput) => {
    addEdgeHostAudit(audits, edge, (email) => users.byEmail(email), hostUid, input);
  };
  const controlRouter = buildControlRouter({
    state,
    faults,
    requests,
    users,
    addAudit,
    edge,
    addEdgeAudit,
  });
  let refCounter = 0;

  const handleApi = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const method = req.method ?? "GET";
    const path = url.pathname;
    state.sync();
    refCounter += 1;
    const ref = `sim-${refCounter.toString(16).padStart(6, "0")}`;
    let auth: RecordedRequest["auth"] = "none";
    let whose: string | undefined;
    const record = (status: number) =>
      requests.push({ method, path, status, auth, ...(whose ? { caller: whose } : {}) });
    const reply = (r: Reply) => {
      record(r.status);
      send(res, r);
    };

    const decision = faults.decide(method, path);
    if (decision.latencyMs > 0) await sleep(decision.latencyMs);
    const fault = decision.fault;
    if (fault?.kind === "hold") await new Promise<void>((resolve) => holding.push(resolve));
    if (fault?.kind === "reset") {
      record(0);
      req.socket.destroy();
      return;
    }
    if (fault?.kind === "status") {
      const status = fault.status ?? 500;
      const headers: Record<string, string> = {};
      if (status === 429) headers["retry-after"] = String(fault.retryAfterSec ?? 1);
      reply(errorReply(new ApiError(status, faultCode(status), "injected fault", headers), ref));
      return;
    }
    if (fault?.kind === "malformed") {
      reply({ status: 200, body: MALFORMED_BODY });
      return;
    }
    if (limiter) {
      const wait = limiter.take(req.socket.remoteAddress ?? "unknown", path);
      if (wait !== undefined) {
        reply(
          errorReply(
            new ApiError(429, "TooManyRequests", "rate limit exceeded for this path prefix", {
              "retry-after": String(wait),
            }),
            ref,
          ),
        );
        return;
      }
    }
    try {
      const result = authenticate(req.headers, credentials, tokens, users);
      auth = result.kind === "none" ? "none" : result.kind;
      if (result.ok) whose = result.user.email;
      // auth calls are recorded with the header they carried but never refused for it
      if (!path.startsWith("/v1/auth/") && !result.ok) {
        throw new ApiError(401, result.code, result.message);
      }
      const match = api.match(method, path);
      if (!match) throw new ApiError(404, "ResourceNotFound", `no route for ${method} ${path}`);
      if ("methodNotAllowed" in match) {
        throw new ApiError(405, "MethodNotAllowed", `${method} is not allowed on ${path}`);
      }
      const projectUid = scopeOf(req, url);
      if (projectUid && !state.project(projectUid)) {
        throw new ApiError(404, "ResourceNotFound", `Project '${projectUid}' not found`);
      }
      const caller = result.ok ? result.user : users.serviceAccount;
      const refused = refusal(caller, method, path, projectUid, state);
      if (refused) throw refused;
      let bodyPromise: Promise<unknown> | undefined;
      const ctx: ApiContext = {
        params: match.params,
        query: url.searchParams,
        projectUid,
        caller,
        body: () => {
          bodyPromise ??= readJson(req);
          return bodyPromise;
        },
      };
      const answer = await match.handler(ctx);
      auditWrite(audits, state, caller, method, path, answer);
      // applied, answered late: past a client's time-out nobody hears it happened
      if (fault?.kind === "late") await sleep(fault.latencyMs ?? 0);
      // applied, answered with a body no client can read (a proxy's page, a changed schema)
      if (fault?.kind === "garbled" && answer.status < 300) {
        reply({ status: answer.status, body: MALFORMED_BODY });
        return;
      }
      reply(answer);
    } catch (error) {
      reply(errorReply(toApiError(error), ref));
    }
  };

  const handleControl = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    try {
      const match = controlRouter.match(req.method ?? "GET", url.pathname);
      if (!match) throw new ApiError(404, "ResourceNotFound", `no control route ${url.pathname}`);
      if ("methodNotAllowed" in match) throw new ApiError(405, "MethodNotAllowed", "wrong method");
      const body =
        req.method === "GET" || req.method === "DELETE" ? undefined : await readJson(req);
      send(res, match.handler(match.params, body, url.searchParams));
    } catch (error) {
      send(res, errorReply(toApiError(error), "sim-control"));
    }
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://simulator.local");
    const handler = url.pathname.startsWith("/__sim/") ? handleControl : handleApi;
    handler(req, res, url).catch(() => {
      if (!res.headersSent) send(res, { status: 500, body: internalError() });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const stopAnimator = options.animateEveryMs
    ? startAnimator(fleet, clock, times, options.animateEveryMs)
    : () => {};

  const control: SimulatorControl = {
    edge,
    projects: () => fleet.projects.map((project) => project.uid),
    clusters: (projectUid, listing) => {
      state.sync();
      return state
        .clusters(projectUid, listing?.includeDeleted === true)
        .map((cluster) => state.view(cluster));
    },
    setState: (uid, next) => state.setState(uid, next),
    setHealth: (uid, health, reason) => state.setHealth(uid, health, reason),
    addEvent: (uid, event) => state.addEvent(uid, event),
    addAudit,
    auditCount: () => audits.size(),
    addCluster: (input) => state.view(state.addCluster(input)),
    addFault: (fault: Fault) => faults.add(fault),
    setRepavePending: (uid, reasons) => state.setRepavePending(uid, reasons),
    setBackupLocation: (uid, name) => state.setBackupLocation(uid, name),
    setCertificateExpiry: (uid, at) => radar.setCertificateExpiry(uid, at),
    setBackupRuns: (uid, schedule, runs) => radar.setBackupRuns(uid, schedule, runs),
    setProfileUpdates: (uid, updates) => radar.setProfileUpdates(uid, updates),
    clearFaults: () => faults.clear(),
    held: () => holding.length,
    release: () => {
      for (const go of holding.splice(0)) go();
    },
    expireTokens: () => tokens.expireAll(),
    issueUserKey: (email, expiresAt) => {
      const user = users.byEmail(email);
      if (!user) throw new Error(`simulator: no user ${email}`);
      return users.issueKey(user.uid, expiresAt).apiKey;
    },
    revokeUserKey: (apiKey) => users.revokeKey(apiKey),
    liveUserKeys: (email) => {
      const user = users.byEmail(email);
      return user ? users.liveKeys(user.uid) : 0;
    },
    requests: () => requests.map((request) => ({ ...request })),
    clearRequests: () => {
      requests.length = 0;
    },
  };

  return {
    url: `http://${host}:${address.port}`,
    credentials,
    control,
    close: async () => {
      // held requests go on (their connections close with the server)
      for (const go of holding.splice(0)) go();
      stopAnimator();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function scopeOf(req: IncomingMessage, url: URL): string | undefined {
  const header = req.headers.projectuid;
  const fromHeader = Array.isArray(header) ? header[0] : header;
  if (fromHeader) return fromHeader;
  for (const [key, value] of url.searchParams) {
    if (key.toLowerCase() === "projectuid" && value) return value;
  }
  return undefined;
}

function faultCode(status: number): string {
  if (status === 429) return "TooManyRequests";
  if (status === 401) return "Unauthorized";
  if (status === 403) return "Forbidden";
  if (status === 404) return "ResourceNotFound";
  if (status === 503) return "ServiceUnavailable";
  return status >= 500 ? "InternalError" : "InvalidRequest";
}

function internalError() {
  return { code: "InternalError", message: "simulator error", ref: "sim-internal" };
}

function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError(500, "InternalError", "simulator error");
}
