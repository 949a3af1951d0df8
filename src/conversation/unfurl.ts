import { cardData } from "../commands/cluster.ts";
import type { Logger } from "../log.ts";
import type { PaletteApi, Scope } from "../palette/api.ts";
import { errorSummary } from "../verb-kit/log-error.ts";
import type { UnfurlView } from "../views/unfurl.ts";
import { type ConsoleLink, parseConsoleLink } from "./console-link.ts";

/** A message full of console links costs at most this many look-ups; the rest stay bare links. */
export const MAX_UNFURLS = 5;

export interface UnfurlDeps {
  palette: PaletteApi;
  /** PALETTE_PROJECTS: the boundary; empty = the whole tenant */
  projects: readonly string[];
  /** PALETTE_CONSOLE_URL */
  consoleUrl: string;
  logger: Logger;
}

/**
 * The unfurls of a message's links, by URL. A link outside PALETTE_PROJECTS (or a tenant cluster
 * while projects are set) gets none and costs no Palette call: its name must not leak past the
 * boundary. A link Palette cannot answer for (gone, refused) gets none either; the rest still do.
 */
export async function unfurlLinks(
  urls: readonly string[],
  deps: UnfurlDeps,
): Promise<Map<string, UnfurlView>> {
  const links = [...new Set(urls)]
    .slice(0, MAX_UNFURLS)
    .map((url) => parseConsoleLink(url, deps.consoleUrl))
    .filter((link): link is ConsoleLink => link !== undefined && withinBoundary(link, deps));
  const views = await Promise.all(links.map((link) => unfurlOne(link, deps)));
  const unfurls = new Map<string, UnfurlView>();
  links.forEach((link, index) => {
    const view = views[index];
    if (view) unfurls.set(link.url, view);
  });
  return unfurls;
}

function withinBoundary(link: ConsoleLink, deps: UnfurlDeps): boolean {
  if (deps.projects.length === 0) return true;
  return link.projectUid !== undefined && deps.projects.includes(link.projectUid);
}

async function unfurlOne(link: ConsoleLink, deps: UnfurlDeps): Promise<UnfurlView | undefined> {
  const scope: Scope = { projectUid: link.projectUid };
  try {
    if (link.kind === "cluster") {
      const [cluster, overview] = await Promise.all([
        deps.palette.getCluster(link.clusterUid, scope),
        deps.palette.getClusterOverview(link.clusterUid, scope).catch(() => undefined),
      ]);
      const name = cluster.metadata?.name ?? link.clusterUid;
      const data = cardData(
        { uid: link.clusterUid, name, projectUid: link.projectUid, cluster },
        cluster,
        overview,
        undefined,
      );
      return { kind: "cluster", data };
    }
    // the project's own summary holds its name and health counts; one one-row search its total
    const [projects, total] = await Promise.all([
      deps.palette.listProjects(),
      deps.palette.searchClusters({ ...scope, limit: 1 }).then((page) => page.total),
    ]);
    const project = projects.find((p) => p.metadata?.uid === link.projectUid);
    if (!project) return undefined;
    const health = project.status?.clustersHealth;
    return {
      kind: "project",
      data: {
        projectUid: link.projectUid,
        projectName: project.metadata?.name ?? undefined,
        total,
        running: health?.running ?? undefined,
        healthy: health?.healthy ?? undefined,
        unhealthy: health?.unhealthy ?? undefined,
        errored: health?.errored ?? undefined,
      },
    };
  } catch (error) {
    deps.logger.info(
      { err: errorSummary(error), kind: link.kind },
      "a Palette link did not unfurl",
    );
    return undefined;
  }
}
