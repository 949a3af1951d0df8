import type { KnownBlock } from "@slack/types";
import { context, fitMessage, header, section } from "./blocks.ts";
import { LIMITS, packLines } from "./limits.ts";
import { code, escapeMrkdwn } from "./mrkdwn.ts";
import { type ScopeLabel, scopeText } from "./scope.ts";

export interface NamespaceCounts {
  namespace: string;
  pods: number;
  deployments: number;
  statefulsets: number;
  daemonsets: number;
  jobs: number;
}

export interface UnhealthyPod {
  namespace: string;
  name: string;
  /** phase, or "NotReady" for a running pod with unready containers */
  problem: string;
}

export interface WorkloadsData {
  clusterName: string;
  clusterUid: string;
  scope: ScopeLabel;
  /** the namespaces asked for; empty = all */
  filter: readonly string[];
  namespaces: readonly NamespaceCounts[];
  unhealthy: readonly UnhealthyPod[];
}

const NAME_WIDTH = 28;
const COLUMNS = ["PODS", "DEPLOY", "STS", "DS", "JOBS"] as const;

function cell(text: string, width: number): string {
  const cut = text.length > width ? `${text.slice(0, width - 1)}…` : text;
  return cut.padEnd(width);
}

export function workloadsBlocks(data: WorkloadsData): KnownBlock[] {
  const filterText =
    data.filter.length > 0 ? ` · namespaces ${data.filter.map((ns) => code(ns)).join(", ")}` : "";
  const blocks: KnownBlock[] = [
    header(`Workloads of ${data.clusterName || data.clusterUid}`),
    context(`${scopeText(data.scope)} · UID ${code(data.clusterUid)}${filterText}`),
  ];
  if (data.namespaces.length === 0) {
    blocks.push(
      section(
        data.filter.length > 0
          ? "No workloads in these namespaces."
          : "No workloads reported for this cluster.",
      ),
    );
  } else {
    const head = `${cell("NAMESPACE", NAME_WIDTH)} ${COLUMNS.map((c) => c.padStart(6)).join(" ")}`;
    const rows = data.namespaces.map(
      (ns) =>
        `${escapeMrkdwn(cell(ns.namespace, NAME_WIDTH))} ${[ns.pods, ns.deployments, ns.statefulsets, ns.daemonsets, ns.jobs].map((n) => String(n).padStart(6)).join(" ")}`,
    );
    // a code block per chunk; the fence and header row eat into the section budget
    const budget = LIMITS.sectionText - head.length - 10;
    for (const chunk of packLines(rows, budget, 4, "namespaces")) {
      blocks.push(section(`\`\`\`${head}\n${chunk.replace(/^_(.*)_$/m, "$1")}\`\`\``));
    }
  }
  if (data.unhealthy.length > 0) {
    const lines = data.unhealthy.map(
      (pod) => `:warning: ${code(`${pod.namespace}/${pod.name}`)} ${escapeMrkdwn(pod.problem)}`,
    );
    const title = `*Unhealthy pods (${data.unhealthy.length})*`;
    blocks.push(...packLines([title, ...lines], undefined, 3, "pods").map(section));
  } else if (data.namespaces.length > 0) {
    blocks.push(context(":white_check_mark: every pod is running or completed"));
  }
  return fitMessage(blocks);
}
