import { isKnownUnhealthy } from "../model/cluster.ts";
import type { ClusterSummary } from "../palette/schemas.ts";
import { flagValue } from "../verb-kit/parse.ts";
import { messageReply, readScopes, usageReply } from "../verb-kit/reply.ts";
import type { VerbSpec } from "../verb-kit/types.ts";
import type { AlertsData, RaisingCluster } from "../views/alerts.ts";
import { scopeArg } from "../views/scope.ts";
import { pageOf } from "./nodes.ts";

/**
 * A cluster raises ClusterHealth when it reports a health that is not Healthy. A cluster with no
 * health yet or `Unknown` (still provisioning, agent not reporting) is not counted: nothing is
 * known to be wrong.
 */
export function raisingCluster(summary: ClusterSummary): RaisingCluster | undefined {
  const health = summary.status?.health?.state;
  // the same rule as the notifier's, so the command and the channel agree on what is raised
  if (!health || !isKnownUnhealthy(health)) return undefined;
  const reason = (summary.status?.health?.conditions ?? [])
    .map((condition) => condition.message ?? condition.type ?? "")
    .filter((text) => text.length > 0)
    .join("; ");
  return {
    uid: summary.metadata?.uid ?? "",
    name: summary.metadata?.name ?? "",
    state: summary.status?.state ?? undefined,
    health,
    reason: reason || undefined,
  };
}

export const alertsVerb: VerbSpec = {
  name: "alerts",
  usage: "alerts [project:<uid>] [--page=<n>]",
  summary: "the project's alert kinds and the clusters now raising them",
  examples: ["/palette alerts", "/palette alerts project:5f2b0c3e9d1a4b0001a2b3c4"],
  run: async (command, ctx) => {
    if (command.args.length > 0 || command.tags.length > 0) {
      return usageReply(alertsVerb, "`alerts` takes only `project:<uid>`.");
    }
    const projects = await Promise.all(
      readScopes(command, ctx).map(async (scope): Promise<AlertsData> => {
        const [components, raising] = await Promise.all([
          ctx.palette.listAlertComponents(scope),
          (async () => {
            const found: RaisingCluster[] = [];
            for await (const summary of ctx.palette.searchAllClusters({
              projectUid: scope.projectUid,
            })) {
              const cluster = raisingCluster(summary);
              if (cluster) found.push(cluster);
            }
            return found;
          })(),
        ]);
        return {
          scope,
          kinds: components.map((component) => ({
            name: component.name ?? "",
            description: component.description ?? undefined,
            channels: component.supportedChannels ?? [],
          })),
          raising,
        };
      }),
    );
    const raising = projects.reduce((sum, project) => sum + project.raising.length, 0);
    // many raising clusters are more than one Slack message holds: a page at a time
    const paging = {
      page: pageOf(flagValue(command, "page")),
      command: `alerts${scopeArg(command.project)}`,
    };
    return messageReply(
      projects.length === 1
        ? { screen: "alerts", data: { ...projects[0]!, ...paging } }
        : { screen: "alertGroups", data: { projects, ...paging } },
      raising === 0
        ? "No cluster is raising an alert"
        : `${raising} cluster${raising === 1 ? "" : "s"} raising ClusterHealth`,
    );
  },
};
