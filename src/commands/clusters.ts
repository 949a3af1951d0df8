import { quoteArg } from "../model/command-text.ts";
import type { ClusterSummary } from "../palette/schemas.ts";
import { flagValue } from "../verb-kit/parse.ts";
import { messageReply, readScopes, shareVisibility, usageReply } from "../verb-kit/reply.ts";
import type { VerbSpec } from "../verb-kit/types.ts";
import type { ClusterListData, ClusterListItem } from "../views/cluster-list.ts";

export const PAGE_SIZE = 50;
const MAX_TAGS = 20;

export function toListItem(summary: ClusterSummary): ClusterListItem {
  return {
    uid: summary.metadata?.uid ?? "",
    name: summary.metadata?.name ?? "",
    state: summary.status?.state ?? undefined,
    health: summary.status?.health?.state ?? undefined,
    provider:
      summary.specSummary?.cloudConfig?.cloudType ??
      summary.specSummary?.clusterProfileTemplate?.cloudType ??
      undefined,
    projectName: summary.specSummary?.projectMeta?.name ?? undefined,
  };
}

/**
 * The command a "Next 50" button replays: same tags, the scope made explicit (so a change of
 * default project cannot move the list under the user), and the continue token as `--page=`.
 */
export function nextPageCommand(
  tags: readonly string[],
  projectUid: string | undefined,
  token: string,
): string {
  const parts = ["clusters", ...tags.map(quoteArg)];
  if (projectUid) parts.push(`project:${quoteArg(projectUid)}`);
  parts.push(`--page=${quoteArg(token)}`);
  return parts.join(" ");
}

export const clustersVerb: VerbSpec = {
  name: "clusters",
  usage: "clusters [tag…] [project:<uid>] [--share]",
  summary: "clusters carrying any of the tags (none: all), 50 a page: state, health, provider",
  examples: ["/palette clusters", "/palette clusters env team:core", "/palette clusters --share"],
  run: async (command, ctx) => {
    // plain words are tags too: `clusters dev` reads better than `clusters tag:dev`
    const tags = [...command.args, ...command.tags];
    if (tags.length > MAX_TAGS) {
      return usageReply(
        clustersVerb,
        `At most ${MAX_TAGS} tags at once (you gave ${tags.length}).`,
      );
    }
    const page = flagValue(command, "page");
    const scopes = readScopes(command, ctx);
    if (page && scopes.length > 1) {
      return usageReply(
        clustersVerb,
        "`--page` goes with `project:<uid>` (a page is one project's).",
      );
    }
    // one search per project, side by side; the client's pacer keeps them within Palette's limits
    const lists: ClusterListData[] = await Promise.all(
      scopes.map(async (scope) => {
        const result = await ctx.palette.searchClusters({
          projectUid: scope.projectUid,
          tags,
          limit: PAGE_SIZE,
          continue: page || undefined,
        });
        const items = result.items.map(toListItem);
        return {
          items,
          scope: { projectUid: scope.projectUid, projectName: items[0]?.projectName },
          tags,
          total: result.total,
          nextCommand: result.continue
            ? nextPageCommand(tags, scope.projectUid, result.continue)
            : undefined,
        };
      }),
    );
    const shown = lists.reduce((sum, list) => sum + list.items.length, 0);
    const fallback = `${shown} cluster${shown === 1 ? "" : "s"}${tags.length ? ` tagged ${tags.join(", ")}` : ""}`;
    return messageReply(
      lists.length === 1
        ? { screen: "clusterList", data: lists[0]! }
        : { screen: "clusterGroups", data: { tags, groups: lists } },
      lists.length === 1 ? fallback : `${fallback} in ${lists.length} projects`,
      shareVisibility(command),
    );
  },
};
