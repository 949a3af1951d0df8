import type { ApiContext, ApiHandler } from "../api-context.ts";
import { badRequest, notFound, ok, page } from "../api-replies.ts";
import { paginate } from "../paging.ts";
import { sees } from "../rbac.ts";
import { componentEvent } from "../render.ts";
import type { Router } from "../routes.ts";
import { UnsupportedFilter } from "../search.ts";
import type { EdgeBook, EdgeHostView } from "./book.ts";
import { edgeHostDevice, edgeHostSummary, edgeToken } from "./render.ts";
import { checkEdgeSort, edgeSearchBodySchema, matchesEdgeSearch, sortEdgeHosts } from "./search.ts";

/**
 * The edge fleet's Palette paths (issue 39), reads only: the host search, one host, a cluster's
 * hosts, the hosts' tags, the registration tokens, and a host's events (served through the
 * shared events route, whose `objectKind` decides). The device-side writes (register, PATCH
 * health, tunnelStatus, hostPairingKey) are deliberately not served: the bot must never call
 * them, and a call would be a 404 here. Scope as everywhere: a host outside the request's
 * project is a 404, and tenant-wide a person sees only their projects' hosts.
 */

export function addEdgeRoutes(router: Router<ApiHandler>, book: EdgeBook): void {
  const projectName = (uid: string) => book.fleet.projects.find((p) => p.uid === uid)?.name ?? "";
  const visible = (ctx: ApiContext) => (view: EdgeHostView) =>
    (!ctx.projectUid || view.host.projectUid === ctx.projectUid) &&
    sees(ctx.caller, view.host.projectUid);
  const scopedHost = (ctx: ApiContext): EdgeHostView => {
    const hostUid = ctx.params.uid ?? "";
    const host = book.host(hostUid);
    const view = host ? book.view(host) : undefined;
    if (!view || !visible(ctx)(view)) throw notFound(`Edge host '${hostUid}'`);
    return view;
  };

  router.add("POST", "/v1/dashboard/edgehosts/search", async (ctx) => {
    const parsed = edgeSearchBodySchema.safeParse((await ctx.body()) ?? {});
    if (!parsed.success) throw badRequest("search body does not match v1SearchFilterSummarySpec");
    const body = parsed.data;
    checkEdgeSort(body);
    const wanted = visible(ctx);
    let views: EdgeHostView[];
    try {
      views = book.fleet.edgeHosts
        .map((host) => book.view(host))
        .filter((view) => wanted(view) && matchesEdgeSearch(view, body));
    } catch (error) {
      if (error instanceof UnsupportedFilter) throw badRequest(error.message, "InvalidFilter");
      throw error;
    }
    const { items, listmeta } = paginate(sortEdgeHosts(views, body), page(ctx.query));
    return ok({
      items: items.map((view) => edgeHostSummary(book, view, projectName(view.host.projectUid))),
      listmeta,
    });
  });

  // the literal paths before `/v1/edgehosts/:uid`, which would otherwise answer for them
  router.add("GET", "/v1/edgehosts/tags", (ctx) => {
    const wanted = visible(ctx);
    const tags = new Set<string>();
    for (const host of book.fleet.edgeHosts) {
      const view = book.view(host);
      if (!wanted(view)) continue;
      for (const [key, value] of Object.entries(view.life.labels)) tags.add(`${key}:${value}`);
    }
    return ok({ tags: [...tags].sort() });
  });

  router.add("GET", "/v1/edgehosts/tokens", (ctx) =>
    ok({
      items: book.tokens
        .filter(
          (token) =>
            !ctx.projectUid ||
            !token.defaultProjectUid ||
            token.defaultProjectUid === ctx.projectUid,
        )
        .map((token) =>
          edgeToken(
            token,
            token.defaultProjectUid ? projectName(token.defaultProjectUid) : undefined,
          ),
        ),
    }),
  );

  router.add("GET", "/v1/edgehosts/:uid", (ctx) => ok(edgeHostDevice(book, scopedHost(ctx))));

  router.add("GET", "/v1/spectroclusters/:uid/edge-native/edgeHosts", (ctx) => {
    const cluster = book.fleet.byUid.get(ctx.params.uid ?? "");
    const inScope =
      cluster?.provider === "edge-native" &&
      (!ctx.projectUid || cluster.projectUid === ctx.projectUid) &&
      sees(ctx.caller, cluster.projectUid);
    if (!cluster || !inScope) {
      throw notFound(`Edge-native cluster '${ctx.params.uid ?? ""}'`);
    }
    const items = book.fleet.edgeHosts
      .filter((host) => host.inUseClusterUid === cluster.uid)
      .map((host) => edgeHostDevice(book, book.view(host)));
    return ok({ items, listmeta: { continue: "", count: items.length, limit: 0, offset: 0 } });
  });
}

/**
 * GET /v1/events/components/edgehost/{uid}: a host's events, newest first. Palette needs the
 * host's project scope for them; without one (or in another project) the host is not found.
 */
export function edgeHostEvents(book: EdgeBook): ApiHandler {
  return (ctx) => {
    const hostUid = ctx.params.objectUid ?? "";
    const host = book.host(hostUid);
    if (!host || !ctx.projectUid || host.projectUid !== ctx.projectUid) {
      throw notFound(`Edge host '${hostUid}'`);
    }
    const object = { kind: "edgehost" as const, name: host.name, uid: host.uid };
    const events = book
      .events(hostUid)
      .map((event) => componentEvent(object, event, { component: "edge-agent", host: host.name }));
    return ok(paginate(events, page(ctx.query)));
  };
}
