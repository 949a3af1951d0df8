import { z } from "zod";
import { ApiError, type Reply } from "../http-util.ts";
import type { Router } from "../routes.ts";
import type { EdgeBook, EdgeHostView } from "./book.ts";

/**
 * `/__sim/edge/...`: the edge fleet's control routes, for tests, the demo and the benchmark: a
 * site outage and its end, a site rolled out, one host dropping, recovering, unpaired, deleted,
 * a remote shell left open, an old agent, a registration token.
 */

/** control-routes.ts's handler, said again here so that module can import this one */
type ControlHandler = (
  params: Record<string, string>,
  body: unknown,
  query: URLSearchParams,
) => Reply;

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) {
    throw new ApiError(400, "InvalidRequest", z.prettifyError(parsed.error).replaceAll("\n", " "));
  }
  return parsed.data;
}

const hostPatchSchema = z.object({
  health: z.enum(["healthy", "unhealthy"]).optional(),
  message: z.string().optional(),
  unpaired: z.boolean().optional(),
  agentVersion: z.string().min(1).optional(),
  shell: z.object({ state: z.string().min(1), at: z.number().optional() }).optional(),
});

export function describeEdgeHost(view: EdgeHostView) {
  return {
    uid: view.host.uid,
    name: view.host.name,
    projectUid: view.host.projectUid,
    site: view.life.site,
    state: view.state,
    health: view.health,
    clusterUid: view.host.inUseClusterUid ?? null,
    lastModified: view.lastModified,
  };
}

export function addEdgeControlRoutes(router: Router<ControlHandler>, book: EdgeBook): void {
  const known = (hostUid: string) => {
    if (!book.host(hostUid)) {
      throw new ApiError(404, "ResourceNotFound", `Edge host '${hostUid}' not found`);
    }
    return hostUid;
  };
  router.add("GET", "/__sim/edge/hosts", (_params, _body, query) => {
    const site = query.get("site");
    const projectUid = query.get("projectUid");
    const hosts = book.fleet.edgeHosts
      .map((host) => book.view(host))
      .filter(
        (view) =>
          (!site || view.life.site === site) &&
          (!projectUid || view.host.projectUid === projectUid),
      )
      .map(describeEdgeHost);
    return { status: 200, body: { hosts } };
  });
  router.add("POST", "/__sim/edge/hosts/:uid", (params, body) => {
    const hostUid = known(params.uid ?? "");
    const patch = parse(hostPatchSchema, body);
    if (patch.health) book.setHealth(hostUid, patch.health, patch.message);
    if (patch.unpaired !== undefined) book.setUnpaired(hostUid, patch.unpaired);
    if (patch.agentVersion) book.setAgentVersion(hostUid, patch.agentVersion);
    if (patch.shell) book.setShell(hostUid, patch.shell.state, patch.shell.at);
    const host = book.host(hostUid);
    return { status: 200, body: host ? describeEdgeHost(book.view(host)) : {} };
  });
  router.add("DELETE", "/__sim/edge/hosts/:uid", (params) => {
    if (!book.deleteHost(params.uid ?? "")) {
      throw new ApiError(404, "ResourceNotFound", `Edge host '${params.uid ?? ""}' not found`);
    }
    return { status: 204 };
  });
  router.add("POST", "/__sim/edge/sites", (_params, body) => {
    const input = parse(
      z.object({
        site: z.string().min(1),
        projectUid: z.string().min(1),
        hosts: z.number().int().min(1).max(5_000),
      }),
      body,
    );
    if (!book.fleet.projects.some((project) => project.uid === input.projectUid)) {
      throw new ApiError(400, "InvalidRequest", `unknown project ${input.projectUid}`);
    }
    const added = book.addSite(input.site, input.projectUid, input.hosts);
    return { status: 201, body: { hosts: added.map((host) => describeEdgeHost(book.view(host))) } };
  });
  // a site's outage and its end: every host of the site loses (or regains) its link at once
  for (const [action, health] of [
    ["outage", "unhealthy"],
    ["recover", "healthy"],
  ] as const) {
    router.add("POST", `/__sim/edge/sites/:site/${action}`, (params, body) => {
      const input = parse(z.object({ projectUid: z.string().optional() }), body);
      const changed = book.setSiteHealth(params.site ?? "", health, input.projectUid);
      if (changed === 0) {
        throw new ApiError(404, "ResourceNotFound", `Site '${params.site ?? ""}' has no hosts`);
      }
      return { status: 200, body: { hosts: changed } };
    });
  }
  router.add("POST", "/__sim/edge/tokens", (_params, body) => {
    const input = parse(
      z.object({
        name: z.string().min(1),
        expiry: z.number(),
        defaultProjectUid: z.string().optional(),
        active: z.boolean().optional(),
      }),
      body,
    );
    const token = book.addToken(input);
    return { status: 201, body: { uid: token.uid, name: token.name } };
  });
}
