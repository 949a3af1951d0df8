import type { Scope } from "../palette/api.ts";
import { PaletteError } from "../palette/errors.ts";
import type { Cluster, ClusterSummary } from "../palette/schemas.ts";
import { buttonRows, commandButton, context, header, section } from "../views/blocks.ts";
import { healthEmoji, stateEmoji } from "../views/emoji.ts";
import { packLines } from "../views/limits.ts";
import { bold, code, escapeMrkdwn } from "../views/mrkdwn.ts";
import { scopeArg, scopeText } from "../views/scope.ts";
import { quoteArg, suggest } from "./parse.ts";
import { messageReply } from "./reply.ts";
import type { CommandContext, MessageReply } from "./types.ts";

/** A cluster found by name or UID, with whatever the lookup already fetched. */
export interface ResolvedCluster {
  uid: string;
  name: string;
  /** the project it lives in (from the search result, or the scope it was found in) */
  projectUid?: string;
  projectName?: string;
  summary?: ClusterSummary;
  cluster?: Cluster;
}

export type Resolution =
  | { kind: "found"; cluster: ResolvedCluster; scope: Scope }
  | { kind: "reply"; reply: MessageReply; reason: "ambiguous" | "unknown" };

/** Palette UIDs are 24 hex digits; anything UID-shaped is tried as one before a name search. */
export function looksLikeUid(ref: string): boolean {
  return /^[A-Za-z0-9-]{16,64}$/.test(ref) && /\d/.test(ref);
}

const MAX_CHOICES = 20;

/**
 * `ref` is a name or a UID. `replay(uid, projectUid)` is the command a choice button runs, so a
 * `nodes web` that matches two clusters offers `nodes <uid1>` and `nodes <uid2>`.
 */
export async function resolveCluster(
  ref: string,
  scope: Scope,
  ctx: CommandContext,
  replay: (uid: string, projectUid: string | undefined) => string,
): Promise<Resolution> {
  if (looksLikeUid(ref)) {
    try {
      const cluster = await ctx.palette.getCluster(ref, scope);
      return {
        kind: "found",
        scope,
        cluster: {
          uid: cluster.metadata?.uid ?? ref,
          name: cluster.metadata?.name ?? ref,
          projectUid: scope.projectUid,
          cluster,
        },
      };
    } catch (error) {
      if (!(error instanceof PaletteError) || !["not_found", "bad_request"].includes(error.kind)) {
        throw error;
      }
    }
  }
  // One name search answers the usual case; only a miss walks the scope, for names that differ
  // in case and for the "did you mean" hint.
  let found = await namedLike(ref, ctx, { projectUid: scope.projectUid, name: ref });
  if (found.exact.length === 0) found = await namedLike(ref, ctx, { projectUid: scope.projectUid });
  const { exact, folded, names } = found;
  const matches = exact.length > 0 ? exact : folded;
  if (matches.length === 1) {
    const summary = matches[0]!;
    const projectUid = summary.specSummary?.projectMeta?.uid ?? scope.projectUid ?? undefined;
    return {
      kind: "found",
      scope: projectUid ? { projectUid } : scope,
      cluster: {
        uid: summary.metadata!.uid!,
        name: summary.metadata?.name ?? ref,
        projectUid,
        projectName: summary.specSummary?.projectMeta?.name ?? undefined,
        summary,
      },
    };
  }
  if (matches.length === 0) {
    const guess = suggest(ref, [...names]);
    const hint = guess ? ` Did you mean ${code(guess)}?` : "";
    const text = `No cluster named ${code(ref)} in ${scopeText(scope)}.${hint} Try \`/palette clusters\`.`;
    return {
      kind: "reply",
      reason: "unknown",
      reply: messageReply([section(`:mag: ${text}`)], `No cluster named ${ref}`),
    };
  }
  return { kind: "reply", reason: "ambiguous", reply: choices(ref, matches, scope, replay) };
}

async function namedLike(
  ref: string,
  ctx: CommandContext,
  query: { projectUid?: string; name?: string },
): Promise<{ exact: ClusterSummary[]; folded: ClusterSummary[]; names: Set<string> }> {
  const exact: ClusterSummary[] = [];
  const folded: ClusterSummary[] = [];
  const names = new Set<string>();
  const lower = ref.toLowerCase();
  for await (const summary of ctx.palette.searchAllClusters(query)) {
    const name = summary.metadata?.name ?? "";
    if (!summary.metadata?.uid) continue;
    names.add(name);
    if (name === ref) exact.push(summary);
    else if (name.toLowerCase() === lower) folded.push(summary);
  }
  return { exact, folded, names };
}

function choices(
  ref: string,
  matches: ClusterSummary[],
  scope: Scope,
  replay: (uid: string, projectUid: string | undefined) => string,
): MessageReply {
  const lines = matches.map((summary) => {
    const project = summary.specSummary?.projectMeta?.name;
    return `${stateEmoji(summary.status?.state)} ${bold(summary.metadata?.name ?? "")} ${code(summary.metadata?.uid ?? "")} · ${healthEmoji(summary.status?.health?.state)} ${escapeMrkdwn(summary.status?.health?.state ?? "health unknown")}${project ? ` · _${escapeMrkdwn(project)}_` : ""}`;
  });
  const buttons = matches.slice(0, MAX_CHOICES).map((summary, index) => {
    const uid = summary.metadata?.uid ?? "";
    const projectUid = summary.specSummary?.projectMeta?.uid ?? scope.projectUid ?? undefined;
    const project = summary.specSummary?.projectMeta?.name;
    const label = `${summary.metadata?.name ?? uid}${project ? ` (${project})` : ""} ${uid.slice(-6)}`;
    return commandButton(label, replay(uid, projectUid), `choice_${index}`);
  });
  return messageReply(
    [
      header(`${matches.length} clusters are named ${ref}`),
      context(`In ${scopeText(scope)}. Pick one:`),
      ...packLines(lines, undefined, 4, "clusters").map(section),
      ...buttonRows(buttons, 4),
    ],
    `${matches.length} clusters are named ${ref}; pick one`,
  );
}

/** The usual replay: `<verb> <uid> project:<p> <extra…>`. */
export function replayWith(verb: string, extra: readonly string[] = []) {
  return (uid: string, projectUid: string | undefined): string =>
    `${verb} ${quoteArg(uid)}${scopeArg(projectUid)}${extra.map((arg) => ` ${quoteArg(arg)}`).join("")}`;
}
