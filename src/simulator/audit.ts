import type { ApiContext, ApiHandler } from "./api-context.ts";
import type { SimCluster } from "./fleet.ts";
import { ApiError, type Reply } from "./http-util.ts";
import type { SimUser } from "./identity.ts";
import { addClusterEvent } from "./lifecycle.ts";
import { BadPageRequest, pageRequest, paginate } from "./paging.ts";
import { sees } from "./rbac.ts";
import { iso } from "./render.ts";
import type { Router } from "./routes.ts";
import type { SimState } from "./state.ts";

/**
 * Palette's audit log as the simulator keeps it: every write made through its API is an entry
 * with the acting user (the key's or the token's owner), as Palette's own audit does, and tests
 * add entries by other people, the system or a service through the control API. Served by
 * `GET /v1/audits` (v1Audits) with the spec's filters, newest first, in pages of 50. A write also
 * leaves an event on the cluster, so its events tell the transition.
 */

export const AUDIT_ACTION_TYPES = [
  "create",
  "update",
  "delete",
  "publish",
  "deploy",
  "activity",
  "action",
] as const;
export type SimAuditAction = (typeof AUDIT_ACTION_TYPES)[number];

export type SimActor =
  | { kind: "user"; user: Pick<SimUser, "uid" | "name" | "email"> }
  | { kind: "system" }
  | { kind: "service"; serviceName: string };

export interface SimAuditEntry {
  uid: string;
  at: number;
  actionType: SimAuditAction;
  actor: SimActor;
  /** the project the resource lives in; undefined: tenant */
  projectUid?: string;
  resource: { kind: string; name: string; uid: string };
  actionMsg: string;
  contentMsg?: string;
}

export class AuditBook {
  readonly #entries: SimAuditEntry[] = [];
  #counter = 0;
  /** the sorted list, kept until the next addition: a large audit is paged 50 at a time */
  #sorted: SimAuditEntry[] | undefined;

  add(entry: Omit<SimAuditEntry, "uid">): SimAuditEntry {
    this.#counter += 1;
    const full: SimAuditEntry = {
      uid: `a${this.#counter.toString(16).padStart(23, "0")}`,
      ...entry,
    };
    this.#entries.push(full);
    this.#sorted = undefined;
    return full;
  }

  /** every entry, newest first (ties: the later addition first) */
  newestFirst(): readonly SimAuditEntry[] {
    this.#sorted ??= this.#entries
      .map((entry, index) => ({ entry, index }))
      .sort((a, b) => b.entry.at - a.entry.at || b.index - a.index)
      .map(({ entry }) => entry);
    return this.#sorted;
  }

  size(): number {
    return this.#entries.length;
  }
}

/** v1Audit as GET /v1/audits answers it. */
export function auditJson(entry: SimAuditEntry, state: SimState) {
  const project = entry.projectUid ? state.project(entry.projectUid) : undefined;
  const actor =
    entry.actor.kind === "user"
      ? {
          actorType: "user",
          user: {
            uid: entry.actor.user.uid,
            emailId: entry.actor.user.email,
            firstName: entry.actor.user.name.split(" ")[0] ?? "",
            lastName: entry.actor.user.name.split(" ").slice(1).join(" "),
            org: "demo",
          },
          ...(project ? { project: { uid: project.uid, name: project.name } } : {}),
        }
      : entry.actor.kind === "service"
        ? { actorType: "service", serviceName: entry.actor.serviceName }
        : { actorType: "system" };
  return {
    metadata: {
      uid: entry.uid,
      name: entry.uid,
      creationTimestamp: iso(entry.at),
      lastModifiedTimestamp: iso(entry.at),
    },
    spec: {
      actionMsg: entry.actionMsg,
      actionType: entry.actionType,
      actor,
      contentMsg: entry.contentMsg ?? "",
      resource: { kind: entry.resource.kind, name: entry.resource.name, uid: entry.resource.uid },
      userMsg: "",
    },
  };
}

function badRequest(message: string, code = "InvalidRequest"): ApiError {
  return new ApiError(400, code, message);
}

function timeParam(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === "") return undefined;
  const at = Date.parse(raw);
  if (Number.isNaN(at)) throw badRequest(`${name} must be an RFC 3339 date-time, got '${raw}'`);
  return at;
}

/** GET /v1/audits with resourceUid, resourceKind, projectUid, userUid, actionType, startTime, endTime. */
export function listAudits(ctx: ApiContext, book: AuditBook, state: SimState): Reply {
  const query = ctx.query;
  const actionType = query.get("actionType") || undefined;
  if (actionType && !(AUDIT_ACTION_TYPES as readonly string[]).includes(actionType)) {
    throw badRequest(`actionType must be one of ${AUDIT_ACTION_TYPES.join(", ")}`);
  }
  const start = timeParam(query, "startTime");
  const end = timeParam(query, "endTime");
  const resourceUid = query.get("resourceUid") || undefined;
  const resourceKind = query.get("resourceKind") || undefined;
  const userUid = query.get("userUid") || undefined;
  // the query's projectUid narrows; the scope header already bounds what the caller may read
  const projectUid = query.get("projectUid") || undefined;
  let page: { offset: number; limit: number };
  try {
    page = pageRequest(query);
  } catch (error) {
    if (error instanceof BadPageRequest) throw badRequest(error.message, "InvalidPageRequest");
    throw error;
  }
  const entries = book.newestFirst().filter((entry) => {
    if (start !== undefined && entry.at < start) return false;
    if (end !== undefined && entry.at > end) return false;
    if (resourceUid && entry.resource.uid !== resourceUid) return false;
    if (resourceKind && entry.resource.kind !== resourceKind) return false;
    if (actionType && entry.actionType !== actionType) return false;
    if (userUid && (entry.actor.kind !== "user" || entry.actor.user.uid !== userUid)) return false;
    if (projectUid && entry.projectUid !== projectUid) return false;
    if (ctx.projectUid && entry.projectUid !== ctx.projectUid) return false;
    // a person reads the audit of the projects they have a role in; tenant entries are admins'
    if (!ctx.caller.tenantAdmin && (!entry.projectUid || !sees(ctx.caller, entry.projectUid))) {
      return false;
    }
    return true;
  });
  const { items, listmeta } = paginate(entries, page);
  return { status: 200, body: { items: items.map((entry) => auditJson(entry, state)), listmeta } };
}

export function addAuditRoutes(
  router: Router<ApiHandler>,
  deps: { book: AuditBook; state: SimState },
): void {
  router.add("GET", "/v1/audits", (ctx) => listAudits(ctx, deps.book, deps.state));
}

interface WriteFacts {
  cluster: SimCluster;
  actionType: SimAuditAction;
  actionMsg: string;
  /** the event the write leaves on the cluster; undefined when its lifecycle tells it already */
  event?: { reason: string; message: string };
}

const CLOUD_CONFIG_POOL = /^\/v1\/cloudconfigs\/([^/]+)\/([^/]+)\/machinePools\/([^/]+)$/;
const MAINTENANCE =
  /^\/v1\/cloudconfigs\/([^/]+)\/([^/]+)\/machinePools\/([^/]+)\/machines\/([^/]+)\/maintenance$/;
const CLUSTER_WRITE =
  /^\/v1\/spectroclusters\/([^/]+)\/(profiles|repave\/approve|clusterConfig\/lifecycleConfig|features\/backup\/onDemand|features\/logFetcher)$/;

/** What a successful write did, as Palette's audit would say it; undefined: not a write. */
function factsOf(
  state: SimState,
  method: string,
  path: string,
  replyBody: unknown,
): WriteFacts | undefined {
  if (method === "POST" && /^\/v1\/spectroclusters\/[^/]+$/.test(path)) {
    const created =
      typeof replyBody === "object" && replyBody !== null && "uid" in replyBody
        ? state.cluster(String((replyBody as { uid: unknown }).uid))
        : undefined;
    return created
      ? {
          cluster: created,
          actionType: "create",
          actionMsg: `Cluster '${created.name}' created`,
        }
      : undefined;
  }
  const single = /^\/v1\/spectroclusters\/([^/]+)$/.exec(path);
  if (method === "DELETE" && single) {
    const cluster = state.cluster(decodeURIComponent(single[1]!));
    return cluster
      ? { cluster, actionType: "delete", actionMsg: `Cluster '${cluster.name}' deleted` }
      : undefined;
  }
  const maintenance = MAINTENANCE.exec(path);
  if (method === "PUT" && maintenance) {
    const cluster = state.clusterByConfig(decodeURIComponent(maintenance[2]!));
    const machine = decodeURIComponent(maintenance[4]!);
    const action = cluster?.maintenance?.get(machine)?.action ?? "maintenance";
    return cluster
      ? {
          cluster,
          actionType: "action",
          actionMsg: `Machine '${machine}' of cluster '${cluster.name}': ${action}`,
          event: { reason: "MachineMaintenance", message: `Machine ${machine}: ${action}` },
        }
      : undefined;
  }
  const pool = CLOUD_CONFIG_POOL.exec(path);
  if (method === "PUT" && pool) {
    const cluster = state.clusterByConfig(decodeURIComponent(pool[2]!));
    const name = decodeURIComponent(pool[3]!);
    const found = cluster?.pools.find((entry) => entry.name === name);
    if (!cluster || !found) return undefined;
    const from = found.resize?.at === state.now() ? found.resize.from : found.size;
    return {
      cluster,
      actionType: "update",
      actionMsg: `Machine pool '${name}' of cluster '${cluster.name}' updated: size ${found.size}`,
      event: {
        reason: "MachinePoolResizing",
        message: `Machine pool ${name} scaling from ${from} to ${found.size} nodes`,
      },
    };
  }
  const write = CLUSTER_WRITE.exec(path);
  if (write && (method === "PATCH" || method === "POST")) {
    const cluster = state.cluster(decodeURIComponent(write[1]!));
    if (!cluster) return undefined;
    const what = write[2]!;
    if (what === "profiles") {
      return {
        cluster,
        actionType: "update",
        actionMsg: `Cluster profiles of '${cluster.name}' updated`,
        event: { reason: "ClusterProfileUpdating", message: "Applying the new profile version" },
      };
    }
    if (what === "repave/approve") {
      return {
        cluster,
        actionType: "action",
        actionMsg: `Repave of cluster '${cluster.name}' approved`,
        event: { reason: "ClusterRepaveApproved", message: "Repave approved; nodes are replaced" },
      };
    }
    if (what === "clusterConfig/lifecycleConfig") {
      const verb = cluster.pause?.pause ? "paused" : "resumed";
      return {
        cluster,
        actionType: "update",
        actionMsg: `Cluster '${cluster.name}' ${verb}`,
        event: { reason: `Cluster${verb === "paused" ? "Paused" : "Resumed"}`, message: verb },
      };
    }
    if (what === "features/backup/onDemand") {
      return {
        cluster,
        actionType: "action",
        actionMsg: `On-demand backup of cluster '${cluster.name}' requested`,
        event: { reason: "BackupRequested", message: "On-demand backup requested" },
      };
    }
    return {
      cluster,
      actionType: "activity",
      actionMsg: `Logs of cluster '${cluster.name}' requested`,
    };
  }
  return undefined;
}

/**
 * After a successful API write: the audit entry with the acting user, and the event of the
 * transition it started. Called by the server once the route answered 2xx.
 */
export function auditWrite(
  book: AuditBook,
  state: SimState,
  caller: SimUser,
  method: string,
  path: string,
  reply: Reply,
): void {
  if (method === "GET" || reply.status < 200 || reply.status >= 300) return;
  const facts = factsOf(state, method, path, reply.body);
  if (!facts) return;
  const { cluster } = facts;
  const now = state.now();
  book.add({
    at: now,
    actionType: facts.actionType,
    actor: { kind: "user", user: { uid: caller.uid, name: caller.name, email: caller.email } },
    projectUid: cluster.projectUid,
    resource: { kind: "spectrocluster", name: cluster.name, uid: cluster.uid },
    actionMsg: facts.actionMsg,
  });
  if (facts.event) addClusterEvent(state.fleet, cluster, now, facts.event);
}

/** What a test or the demo adds to the audit by hand (the control API). */
export interface AuditInput {
  clusterUid: string;
  actionType: SimAuditAction;
  actionMsg: string;
  /** actorType user: the Palette user's e-mail (a seeded user, or the service account) */
  email?: string;
  /** default "user" when `email` is given, else "system" */
  actorType?: "user" | "system" | "service";
  serviceName?: string;
  /** epoch ms; default now */
  at?: number;
}

export function addAuditEntry(
  book: AuditBook,
  state: SimState,
  userByEmail: (email: string) => SimUser | undefined,
  input: AuditInput,
): SimAuditEntry {
  const cluster = state.requireCluster(input.clusterUid);
  return book.add({
    at: input.at ?? state.now(),
    actionType: input.actionType,
    actor: auditActor(input, userByEmail),
    projectUid: cluster.projectUid,
    resource: { kind: "spectrocluster", name: cluster.name, uid: cluster.uid },
    actionMsg: input.actionMsg,
  });
}

/** Who an added entry names: a seeded user by e-mail, a service, or the system. */
export function auditActor(
  input: Pick<AuditInput, "email" | "actorType" | "serviceName">,
  userByEmail: (email: string) => SimUser | undefined,
): SimActor {
  const kind = input.actorType ?? (input.email ? "user" : "system");
  if (kind === "user") {
    const user = input.email ? userByEmail(input.email) : undefined;
    if (!user) throw new Error(`no Palette user ${input.email ?? "(none given)"}`);
    return { kind: "user", user: { uid: user.uid, name: user.name, email: user.email } };
  }
  if (kind === "service") {
    return { kind: "service", serviceName: input.serviceName || "palette-service" };
  }
  return { kind: "system" };
}
