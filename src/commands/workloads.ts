import type { Workloads } from "../palette/schemas.ts";
import { messageReply, readScopes, usageReply } from "../verb-kit/reply.ts";
import { replayWith, resolveCluster } from "../verb-kit/resolve.ts";
import type { VerbSpec } from "../verb-kit/types.ts";
import type { NamespaceCounts, UnhealthyPod } from "../views/workloads.ts";

const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const MAX_NAMESPACES = 20;

type Kind = "pods" | "deployments" | "statefulsets" | "daemonsets" | "jobs";

/** Counts per namespace and the pods that are neither running-and-ready nor completed. */
export function summarizeWorkloads(
  workloads: Workloads,
  filter: readonly string[],
): { namespaces: NamespaceCounts[]; unhealthy: UnhealthyPod[] } {
  const wanted = filter.length > 0 ? new Set(filter) : undefined;
  const counts = new Map<string, NamespaceCounts>();
  const bump = (namespace: string | null | undefined, kind: Kind) => {
    const ns = namespace ?? "(none)";
    if (wanted && !wanted.has(ns)) return false;
    let entry = counts.get(ns);
    if (!entry) {
      entry = { namespace: ns, pods: 0, deployments: 0, statefulsets: 0, daemonsets: 0, jobs: 0 };
      counts.set(ns, entry);
    }
    entry[kind] += 1;
    return true;
  };
  const spec = workloads.spec;
  const unhealthy: UnhealthyPod[] = [];
  for (const pod of spec?.pods ?? []) {
    if (!bump(pod.metadata?.namespace, "pods")) continue;
    const problem = podProblem(pod.status);
    if (problem) {
      unhealthy.push({
        namespace: pod.metadata?.namespace ?? "(none)",
        name: pod.metadata?.entity?.name ?? pod.metadata?.entity?.uid ?? "unnamed",
        problem,
      });
    }
  }
  for (const item of spec?.deployments ?? []) bump(item.metadata?.namespace, "deployments");
  for (const item of spec?.statefulSets ?? []) bump(item.metadata?.namespace, "statefulsets");
  for (const item of spec?.daemonSets ?? []) bump(item.metadata?.namespace, "daemonsets");
  for (const item of spec?.jobs ?? []) bump(item.metadata?.namespace, "jobs");
  const namespaces = [...counts.values()].sort((a, b) => a.namespace.localeCompare(b.namespace));
  return { namespaces, unhealthy };
}

type PodStatus = NonNullable<NonNullable<Workloads["spec"]>["pods"]>[number]["status"];

function podProblem(status: PodStatus): string | undefined {
  const phase = status?.phase ?? "Unknown";
  if (phase === "Succeeded") return undefined;
  if (phase !== "Running") return phase;
  const notReady = (status?.containers ?? []).filter((container) => container.ready === false);
  if (notReady.length === 0) return undefined;
  const restarts = notReady.reduce((sum, container) => sum + (container.restartCount ?? 0), 0);
  const names = notReady.map((container) => container.name ?? "?").join(", ");
  return `NotReady (${names}${restarts > 0 ? `, ${restarts} restarts` : ""})`;
}

export const workloadsVerb: VerbSpec = {
  name: "workloads",
  usage: "workloads <cluster> [namespace…] [project:<uid>]",
  summary: "pods, deployments, statefulsets, daemonsets, jobs per namespace; unhealthy pods named",
  examples: ["/palette workloads web-prod", "/palette workloads web-prod default kube-system"],
  run: async (command, ctx) => {
    const [ref, ...namespaces] = command.args;
    if (!ref) return usageReply(workloadsVerb, "Which cluster? Give its name or UID.");
    const bad = namespaces.find((ns) => !NAMESPACE.test(ns));
    if (bad !== undefined) {
      return usageReply(
        workloadsVerb,
        `"${bad.slice(0, 80)}" is not a Kubernetes namespace name (lower-case letters, digits and -).`,
      );
    }
    if (namespaces.length > MAX_NAMESPACES) {
      return usageReply(workloadsVerb, `At most ${MAX_NAMESPACES} namespaces at once.`);
    }
    const found = await resolveCluster(
      ref,
      readScopes(command, ctx),
      ctx,
      replayWith("workloads", namespaces),
    );
    if (found.kind === "reply") return found.reply;
    const { cluster, scope } = found;
    const workloads = await ctx.palette.getWorkloads(cluster.uid, namespaces, scope);
    const summary = summarizeWorkloads(workloads, namespaces);
    return messageReply(
      {
        screen: "workloads",
        data: {
          clusterName: cluster.name,
          clusterUid: cluster.uid,
          scope: { projectUid: scope.projectUid, projectName: cluster.projectName },
          filter: namespaces,
          ...summary,
        },
      },
      `Workloads of ${cluster.name}: ${summary.namespaces.length} namespaces, ${summary.unhealthy.length} unhealthy pods`,
    );
  },
};
