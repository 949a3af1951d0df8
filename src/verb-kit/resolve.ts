import { quoteArg } from "../model/command-text.ts";
import type { Scope } from "../palette/api.ts";
import { clusterProjectUid } from "../palette/cluster-project.ts";
import { PaletteError } from "../palette/errors.ts";
import type { Cluster, ClusterSummary } from "../palette/schemas.ts";
import { code } from "../views/mrkdwn.ts";
import { scopeArg, scopeText } from "../views/scope.ts";
import { suggest } from "./parse.ts";
import { messageReply, notice } from "./reply.ts";
import type { CommandContext, MessageReply } from "./types.ts";

/** A cluster found by name or UID, with whatever the lookup already fetched. */
export interface ResolvedCluster {
  uid: string;
  name: string;
  /**
   * the project it lives in, as Palette reports it (the search result's projectMeta, the
   * object's `metadata.annotations.projectUid`), else the project scope it was found in
   */
  projectUid?: string;
  projectName?: string;
  summary?: ClusterSummary;
  cluster?: Cluster;
}

export type Resolution =
  | { kind: "found"; cluster: ResolvedCluster; scope: Scope }
  | { kind: "reply"; reply: MessageReply; reason: "ambiguous" | "unknown" };

/**
 * Palette UIDs are 24 hex digits (MongoDB object ids): those are tried as a UID before a name
 * search. Cluster names are often UID-shaped too (`billing-prod-aws-11`), and trying them as UIDs
 * first cost a GET per watched project before every name search.
 */
export function isPaletteUid(ref: string): boolean {
  return /^[0-9a-f]{24}$/i.test(ref);
}

/** Anything else that could still be an id (another length, dashes): tried only when no name matches. */
export function looksLikeUid(ref: string): boolean {
  return /^[A-Za-z0-9-]{16,64}$/.test(ref) && /\d/.test(ref);
}

/**
 * `ref` is a name or a UID, looked up in every scope of `scopes` (the watched projects, or the one
 * `project:` names). `replay(uid, projectUid)` is the command a choice button runs, so a
 * `nodes web` that matches two clusters offers `nodes <uid1>` and `nodes <uid2>`.
 */
export async function resolveCluster(
  ref: string,
  scopes: readonly Scope[],
  ctx: CommandContext,
  replay: (uid: string, projectUid: string | undefined) => string,
): Promise<Resolution> {
  const byUid = async () => {
    const byScope = await Promise.all(scopes.map((scope) => clusterByUid(ref, scope, ctx)));
    return byScope.find((resolution) => resolution !== undefined);
  };
  if (isPaletteUid(ref)) {
    const found = await byUid();
    if (found) return found;
  }
  // One name search answers the usual case (one for all watched projects when Palette allows,
  // else one per project); only a miss walks the scopes, for names that differ in case and for
  // the "did you mean" hint.
  let found = (await namedInTenant(ref, scopes, ctx)) ?? (await namedLike(ref, scopes, ctx, ref));
  if (found.exact.length === 0 && !ctx.noFleetWalk)
    found = await namedLike(ref, scopes, ctx, undefined);
  const { exact, folded, names } = found;
  const matches = exact.length > 0 ? exact : folded;
  const scope: Scope = scopes.length === 1 ? scopes[0]! : {};
  if (matches.length === 1) {
    const summary = matches[0]!;
    const projectUid = clusterProjectUid(summary) ?? scope.projectUid ?? undefined;
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
  const where = scopes.length === 1 ? scopeText(scope) : `the ${scopes.length} watched projects`;
  if (matches.length === 0 && !isPaletteUid(ref) && looksLikeUid(ref)) {
    const found = await byUid();
    if (found) return found;
  }
  if (matches.length === 0) {
    const guess = suggest(ref, [...names]);
    const hint = guess ? ` Did you mean ${code(guess)}?` : "";
    const text = `No cluster named ${code(ref)} in ${where}.${hint} Try \`/palette clusters\`.`;
    return {
      kind: "reply",
      reason: "unknown",
      reply: {
        ...messageReply(notice(`:mag: ${text}`), `No cluster named ${ref}`),
        miss: "unknown-cluster",
      },
    };
  }
  return { kind: "reply", reason: "ambiguous", reply: choices(ref, matches, scope, replay) };
}

/** A UID in one scope; undefined when that scope does not have it. */
async function clusterByUid(
  uid: string,
  scope: Scope,
  ctx: CommandContext,
): Promise<Resolution | undefined> {
  try {
    const cluster = await ctx.palette.getCluster(uid, scope);
    // found in the tenant scope (PALETTE_PROJECTS empty), only Palette's annotation says which
    // project it is in: its freezes, the boundary and the cards' commands depend on it
    const projectUid = clusterProjectUid(cluster) ?? scope.projectUid ?? undefined;
    return {
      kind: "found",
      scope: projectUid ? { projectUid } : scope,
      cluster: {
        uid: cluster.metadata?.uid ?? uid,
        name: cluster.metadata?.name ?? uid,
        projectUid,
        cluster,
      },
    };
  } catch (error) {
    if (error instanceof PaletteError && ["not_found", "bad_request"].includes(error.kind)) {
      return undefined;
    }
    throw error;
  }
}

interface NameMatches {
  exact: ClusterSummary[];
  folded: ClusterSummary[];
  names: Set<string>;
}

/**
 * With several watched projects, one tenant-wide name search asks them all at once (Palette's
 * search without a project scope spans the tenant's projects) and keeps the watched ones.
 * Undefined, so the caller asks project by project, when it finds nothing there or the bot's
 * account may not search the tenant: an account that sees only its projects still gets answers.
 */
async function namedInTenant(
  ref: string,
  scopes: readonly Scope[],
  ctx: CommandContext,
): Promise<NameMatches | undefined> {
  const watched = new Set(scopes.map((scope) => scope.projectUid));
  if (scopes.length < 2 || watched.has(undefined)) return undefined;
  try {
    const found = await namedLike(ref, [{}], ctx, ref);
    const inWatched = (summary: ClusterSummary) =>
      watched.has(summary.specSummary?.projectMeta?.uid ?? undefined);
    const exact = found.exact.filter(inWatched);
    return exact.length > 0
      ? { ...found, exact, folded: found.folded.filter(inWatched) }
      : undefined;
  } catch (error) {
    if (error instanceof PaletteError && error.kind === "forbidden") {
      return undefined;
    }
    throw error;
  }
}

/**
 * The clusters of every scope whose name is `ref` (exactly, or case-folded), and every name seen.
 * With `name`, each scope is asked for that name only; without, each scope is walked.
 */
async function namedLike(
  ref: string,
  scopes: readonly Scope[],
  ctx: CommandContext,
  name: string | undefined,
): Promise<NameMatches> {
  const exact: ClusterSummary[] = [];
  const folded: ClusterSummary[] = [];
  const names = new Set<string>();
  const lower = ref.toLowerCase();
  const perScope = await Promise.all(
    scopes.map(async (scope) => {
      const found: ClusterSummary[] = [];
      for await (const summary of ctx.palette.searchAllClusters({
        projectUid: scope.projectUid,
        ...(name !== undefined ? { name } : {}),
      })) {
        found.push(summary);
      }
      return found;
    }),
  );
  for (const [index, summaries] of perScope.entries()) {
    for (const summary of summaries) {
      const clusterName = summary.metadata?.name ?? "";
      if (!summary.metadata?.uid) continue;
      // a search in a project scope may not say which project: it is the scope's
      const projectUid = scopes[index]?.projectUid;
      const located =
        summary.specSummary?.projectMeta?.uid || !projectUid
          ? summary
          : {
              ...summary,
              specSummary: {
                ...summary.specSummary,
                projectMeta: { ...summary.specSummary?.projectMeta, uid: projectUid },
              },
            };
      names.add(clusterName);
      if (clusterName === ref) exact.push(located);
      else if (clusterName.toLowerCase() === lower) folded.push(located);
    }
  }
  return { exact, folded, names };
}

function choices(
  ref: string,
  matches: ClusterSummary[],
  scope: Scope,
  replay: (uid: string, projectUid: string | undefined) => string,
): MessageReply {
  const choices = matches.map((summary) => {
    const uid = summary.metadata?.uid ?? "";
    const projectUid = summary.specSummary?.projectMeta?.uid ?? scope.projectUid ?? undefined;
    return {
      uid,
      name: summary.metadata?.name ?? "",
      state: summary.status?.state ?? undefined,
      health: summary.status?.health?.state ?? undefined,
      projectName: summary.specSummary?.projectMeta?.name ?? undefined,
      command: replay(uid, projectUid),
    };
  });
  return messageReply(
    { screen: "clusterChoice", data: { ref, scope, choices } },
    `${matches.length} clusters are named ${ref}; pick one`,
  );
}

/** The usual replay: `<verb> <uid> project:<p> <extra…>`. */
export function replayWith(verb: string, extra: readonly string[] = []) {
  return (uid: string, projectUid: string | undefined): string =>
    `${verb} ${quoteArg(uid)}${scopeArg(projectUid)}${extra.map((arg) => ` ${quoteArg(arg)}`).join("")}`;
}
