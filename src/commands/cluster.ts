import type { Cluster, ClusterOverview, ClusterSummary } from "../palette/schemas.ts";
import { tagsOf } from "../palette/tags.ts";
import { RadarStore } from "../store/radar.ts";
import { errorSummary } from "../verb-kit/log-error.ts";
import { messageReply, readScopes, shareVisibility, usageReply } from "../verb-kit/reply.ts";
import { type ResolvedCluster, replayWith, resolveCluster } from "../verb-kit/resolve.ts";
import type { VerbSpec } from "../verb-kit/types.ts";
import type { ClusterCardData } from "../views/cluster-card.ts";

export const clusterVerb: VerbSpec = {
  name: "cluster",
  usage: "cluster <name or uid> [project:<uid>] [--share]",
  summary: "one cluster: state, health, provider, cloud config, age, links and buttons",
  examples: ["/palette cluster web-prod", "/palette cluster 5f2b0c3e9d1a4b0001a2b3c4 --share"],
  run: async (command, ctx) => {
    if (command.args.length !== 1) {
      return usageReply(
        clusterVerb,
        command.args.length === 0
          ? "Which cluster? Give its name or UID."
          : "One cluster at a time.",
      );
    }
    const ref = command.args[0]!;
    const found = await resolveCluster(ref, readScopes(command, ctx), ctx, replayWith("cluster"));
    if (found.kind === "reply") return found.reply;
    const { cluster: resolved, scope } = found;
    // found by name, the search result already says what the full object would (name, labels,
    // age, provider, cloud config): the card costs the search and the overview, two calls
    const [cluster, overview] = await Promise.all([
      resolved.cluster ??
        (resolved.summary ? undefined : ctx.palette.getCluster(resolved.uid, scope)),
      // health lives only on the overview; a card without it beats no card
      ctx.palette.getClusterOverview(resolved.uid, scope).catch((error: unknown) => {
        ctx.logger.warn({ err: errorSummary(error), uid: resolved.uid }, "cluster overview failed");
        return undefined;
      }),
    ]);
    const data = cardData(resolved, cluster, overview, resolved.summary);
    // found by name the card has no repave state of its own: the radar's fleet-wide list of
    // pending repaves says it, from the store, with no read per card
    if (!data.repavePending) {
      data.repavePending = (await new RadarStore(ctx.db).repaveSince([resolved.uid])).has(
        resolved.uid,
      );
    }
    data.scope = { projectUid: scope.projectUid, projectName: resolved.projectName };
    return messageReply(
      {
        screen: "clusterCard",
        data: { card: data, env: { now: ctx.clock.now(), consoleUrl: ctx.consoleUrl } },
      },
      `Cluster ${data.name}: ${data.state ?? "unknown state"}, ${data.health ?? "health unknown"}`,
      shareVisibility(command),
    );
  },
};

export function cardData(
  resolved: ResolvedCluster,
  cluster: Cluster | undefined,
  overview: ClusterOverview | undefined,
  summary: ClusterSummary | undefined,
): ClusterCardData {
  const endpoint = overview?.status?.apiEndpoints?.[0] ?? cluster?.status?.apiEndpoints?.[0];
  const summaryConfig = summary?.specSummary?.cloudConfig;
  const ref =
    cluster?.spec?.cloudConfigRef ??
    (summaryConfig?.cloudType && summaryConfig.uid
      ? // Palette's cloudConfigRef.kind is the cloud type, as the Terraform provider reads it
        { kind: summaryConfig.cloudType, uid: summaryConfig.uid }
      : undefined);
  const meta = cluster?.metadata ?? summary?.metadata;
  const reasons = (
    overview?.status?.health?.conditions ??
    summary?.status?.health?.conditions ??
    []
  )
    .map((condition) => [condition.type, condition.message].filter(Boolean).join(": "))
    .filter((reason) => reason.length > 0);
  return {
    uid: resolved.uid,
    name: meta?.name ?? resolved.name,
    projectUid: resolved.projectUid,
    projectName: resolved.projectName,
    state: overview?.status?.state ?? cluster?.status?.state ?? summary?.status?.state ?? undefined,
    health: overview?.status?.health?.state ?? summary?.status?.health?.state ?? undefined,
    healthReasons: reasons,
    provider: cluster?.spec?.cloudType ?? summaryConfig?.cloudType ?? undefined,
    virtualState: cluster?.status?.virtual?.state ?? undefined,
    repavePending: cluster?.status?.repave?.state === "Pending",
    kubernetesVersion: overview?.status?.kubeMeta?.kubernetesVersion ?? undefined,
    createdAt: meta?.creationTimestamp ?? undefined,
    apiEndpoint: endpoint?.host
      ? `${endpoint.host}${endpoint.port ? `:${endpoint.port}` : ""}`
      : undefined,
    cloudConfig: ref?.kind && ref.uid ? { kind: ref.kind, uid: ref.uid } : undefined,
    tags: tagsOf(meta?.labels),
    scope: {},
  };
}
