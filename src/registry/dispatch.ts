import { changeVerbs } from "../changes/verbs.ts";
import { alertsVerb } from "../commands/alerts.ts";
import { auditVerb } from "../commands/audit.ts";
import { clusterVerb } from "../commands/cluster.ts";
import { clustersVerb } from "../commands/clusters.ts";
import { digestVerb } from "../commands/digest.ts";
import { edgeVerb } from "../commands/edge.ts";
import { helpVerb } from "../commands/help.ts";
import { kubeconfigVerb } from "../commands/kubeconfig.ts";
import { muteVerbs } from "../commands/mute.ts";
import { nodesVerb } from "../commands/nodes.ts";
import { risksVerb } from "../commands/risks.ts";
import { subscribeVerbs } from "../commands/subscribe.ts";
import { workloadsVerb } from "../commands/workloads.ts";
import { actingFor, personalRefusal } from "../identity/acting.ts";
import { identityVerbs } from "../identity/verbs.ts";
import { launchVerb } from "../launch/verb.ts";
import { describeForUser } from "../palette/errors.ts";
import type { AuditAction } from "../store/audit.ts";
import { errorSummary } from "../verb-kit/log-error.ts";
import { parseCommand, suggest } from "../verb-kit/parse.ts";
import { errorReply, messageReply, usageReply } from "../verb-kit/reply.ts";
import type {
  CommandContext,
  MessageReply,
  ParsedCommand,
  Reply,
  VerbSpec,
} from "../verb-kit/types.ts";
import { checkSlackLimits } from "../views/limits.ts";
import { code, escapeMrkdwn } from "../views/mrkdwn.ts";
import { replyBlocks } from "../views/reply.ts";
import { whyVerb } from "../why/verb.ts";

export const VERBS: VerbSpec[] = [
  helpVerb(() => VERBS),
  clustersVerb,
  clusterVerb,
  nodesVerb,
  edgeVerb,
  workloadsVerb,
  kubeconfigVerb,
  alertsVerb,
  launchVerb,
  ...subscribeVerbs,
  digestVerb,
  ...muteVerbs,
  ...identityVerbs,
  ...changeVerbs,
  auditVerb,
  whyVerb,
  risksVerb,
];

/** Short forms people type anyway. */
const ALIASES: Record<string, string> = {
  "?": "help",
  ls: "clusters",
  list: "clusters",
  kubectl: "kubeconfig",
  kc: "kubeconfig",
  alert: "alerts",
  node: "nodes",
  workload: "workloads",
  timeline: "why",
};

/** Flags these verbs understand; launch and the subscribe verbs check their own. */
const KNOWN_FLAGS: Record<string, readonly string[]> = {
  help: [],
  clusters: ["share", "page"],
  cluster: ["share"],
  nodes: ["page"],
  edge: ["page"],
  workloads: [],
  kubeconfig: [],
  alerts: ["page"],
  mute: [],
  unmute: [],
  mutes: [],
  login: [],
  whoami: [],
  logout: [],
  scale: [],
  cordon: [],
  uncordon: [],
  repave: [],
  pause: [],
  resume: [],
  backup: [],
  logs: [],
  upgrade: [],
  delete: [],
  freeze: [],
  unfreeze: [],
  freezes: [],
  audit: [],
  why: ["share", "page", "until"],
  risks: [],
  renew: [],
};

export function findVerb(name: string): VerbSpec | undefined {
  const wanted = ALIASES[name] ?? name;
  return VERBS.find((verb) => verb.name === wanted);
}

/**
 * Parses `/palette <text>`, runs the verb and returns its reply. Never throws: a bad text gets a
 * usage answer, a failure a clear ephemeral message (details in the log, never a secret).
 */
export async function dispatch(text: string, ctx: CommandContext): Promise<Reply> {
  let verbName = "?";
  try {
    const { command, problems } = parseCommand(typeof text === "string" ? text : "");
    verbName = command.verb;
    const spec = findVerb(command.verb);
    if (problems.length > 0) {
      return messageReply(
        {
          screen: "usage",
          data: { problem: escapeMrkdwn(problems[0]!), usage: escapeMrkdwn(spec?.usage ?? "help") },
        },
        problems[0]!,
      );
    }
    if (!spec) return unknownVerb(command.verb);
    const outside = await outsideWatchedProjects(command.project, spec.name, ctx);
    if (outside) return outside;
    const unknownFlag = [...command.flags]
      .map((flag) => flag.split("=")[0]!)
      .find((flag) => KNOWN_FLAGS[spec.name] && !KNOWN_FLAGS[spec.name]!.includes(flag));
    if (unknownFlag !== undefined) {
      const problem = `\`${spec.name}\` has no option --${unknownFlag.slice(0, 40)}.`;
      return usageReply(spec, problem);
    }
    const reply = STRICT_READS.has(spec.name)
      ? await runAsPerson(spec, command, ctx)
      : await spec.run(command, ctx);
    return checked(reply, spec.name, ctx);
  } catch (error) {
    ctx.logger.warn(
      { err: errorSummary(error), verb: verbName.slice(0, 40), userId: ctx.requester.userId },
      "command failed",
    );
    const message = describeForUser(error);
    return errorReply(escapeMrkdwn(message), message);
  }
}

/** IDENTITY=strict: the verbs that read Palette run with the person's own key too. */
const STRICT_READS = new Set([
  "clusters",
  "cluster",
  "nodes",
  "edge",
  "workloads",
  "alerts",
  "why",
  // the radar's store holds every project's risks: the person's key says which projects are theirs
  "risks",
]);

/**
 * A read verb under IDENTITY=strict: as the linked person, so Palette shows them only what their
 * roles let them see; an unlinked person gets the login hint and Palette is asked nothing.
 * Under any other mode the verb runs as the service account.
 */
async function runAsPerson(
  spec: VerbSpec,
  command: ParsedCommand,
  ctx: CommandContext,
): Promise<Reply> {
  if (ctx.identity?.mode !== "strict") return spec.run(command, ctx);
  const acting = await actingFor(ctx.requester, ctx.identity);
  if (acting.kind === "refused") return acting.reply;
  if (acting.kind === "service") return spec.run(command, ctx);
  try {
    return await spec.run(command, { ...ctx, palette: acting.palette, actingAs: acting.link });
  } catch (error) {
    const refused = await personalRefusal(
      error,
      acting.link,
      "read clusters",
      command.project,
      ctx.identity,
    );
    if (refused) return refused;
    throw error;
  } finally {
    await acting.palette.close();
  }
}

/**
 * PALETTE_PROJECTS is the bot's boundary when it is set: a `project:` outside it is refused before
 * any Palette call, for every verb (kubeconfig included), and the attempt is audited.
 */
async function outsideWatchedProjects(
  project: string | undefined,
  verb: string,
  ctx: CommandContext,
): Promise<MessageReply | undefined> {
  if (project === undefined || ctx.projects.length === 0 || ctx.projects.includes(project)) {
    return undefined;
  }
  const action: AuditAction =
    verb === "kubeconfig" ? "kubeconfig" : verb === "subscribe" ? "subscribe" : "read";
  await ctx.audit.record({
    userId: ctx.requester.userId,
    action,
    target: `${verb} project:${project.slice(0, 64)}`,
    outcome: "denied",
    detail: JSON.stringify({ reason: "outside PALETTE_PROJECTS" }),
  });
  const shown = escapeMrkdwn(project.slice(0, 64));
  return errorReply(
    `Project \`${shown}\` is not one this bot watches.`,
    `Project ${project.slice(0, 64)} is not one this bot watches.`,
    `Watched projects (PALETTE_PROJECTS): ${ctx.projects.map((p) => `\`${escapeMrkdwn(p)}\``).join(", ")}`,
  );
}

function unknownVerb(verb: string): MessageReply {
  const guess = suggest(verb, [...VERBS.map((spec) => spec.name), ...Object.keys(ALIASES)]);
  const target = guess ? (ALIASES[guess] ?? guess) : undefined;
  const shown = verb.length > 40 ? `${verb.slice(0, 40)}…` : verb;
  const problem = `I don't know \`/palette ${escapeMrkdwn(shown)}\`.`;
  const hint = target ? `Did you mean ${code(target)}?` : undefined;
  return messageReply(
    { screen: "usage", data: { problem, usage: "help", suggestion: hint } },
    `Unknown command ${shown}.${target ? ` Did you mean ${target}?` : ""}`,
  );
}

/** A belt for every verb, ours and others': a reply Slack would refuse becomes a clear error. */
function checked(reply: Reply, verb: string, ctx: CommandContext): Reply {
  const message =
    reply.kind === "message" ? reply : reply.kind === "file" ? reply.notice : undefined;
  if (!message) return reply;
  const problems = checkSlackLimits(replyBlocks(message.view));
  if (problems.length === 0) return reply;
  // a stray `<` only renders oddly; everything else Slack refuses, or it would ping people
  const fatal = problems.filter((problem) => !problem.includes("unescaped < "));
  ctx.logger[fatal.length > 0 ? "error" : "warn"](
    { verb, problems: problems.slice(0, 5) },
    "reply broke Slack limits",
  );
  if (fatal.length === 0) return reply;
  return errorReply(
    "I could not fit that answer into a Slack message; try narrowing the command (a tag, a project or a namespace). The details are in the bot's log.",
    "I could not fit that answer into a Slack message.",
  );
}
