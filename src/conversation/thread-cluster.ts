import type { ClusterSnap } from "../model/cluster.ts";
import { quoteArg } from "../model/command-text.ts";
import { parseCommand } from "../verb-kit/parse.ts";

/**
 * In the thread of a notification card the card's cluster is the subject: `nodes`, `workloads`,
 * `mute 1d reason` there need no name. The verbs below get the cluster's UID (and its project)
 * put where the grammar wants the cluster; every other text is left as typed.
 */

/** verbs whose one argument is the cluster: filled in only when none was given */
const CLUSTER_ONLY = new Set(["cluster", "nodes", "node", "kubeconfig", "kubectl", "kc", "unmute"]);
/** verbs whose cluster comes before other words (namespaces; a length and a reason) */
const CLUSTER_FIRST = new Set(["workloads", "workload", "mute", "why", "timeline"]);

export function withThreadCluster(
  text: string,
  cluster: Pick<ClusterSnap, "uid" | "name" | "project">,
): string {
  const { command, problems } = parseCommand(text);
  if (problems.length > 0 || command.raw === "") return text;
  const verb = command.verb;
  const first = command.args[0];
  const namesCard = first !== undefined && (first === cluster.uid || first === cluster.name);
  const wantsCluster =
    (CLUSTER_ONLY.has(verb) && command.args.length === 0) ||
    (CLUSTER_FIRST.has(verb) && !namesCard);
  if (!wantsCluster) return text;
  // what was typed after the verb, as typed (quotes, options and all)
  const verbAt = new RegExp(`(^|\\s)${verb}(?=\\s|$)`, "i").exec(command.raw);
  const rest = verbAt ? command.raw.slice(verbAt.index + verbAt[0].length) : "";
  const project =
    cluster.project !== "" && command.project === undefined ? ` project:${cluster.project}` : "";
  return `${verb} ${quoteArg(cluster.uid)}${project}${rest}`.trim();
}
