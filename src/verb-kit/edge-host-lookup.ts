import type { PaletteApi, Scope } from "../palette/api.ts";
import type { PaletteEdgeApi } from "../palette/edge-api.ts";
import type { EdgeHostSummary } from "../palette/edge-reads.ts";
import { PaletteError } from "../palette/errors.ts";
import { code } from "../views/mrkdwn.ts";
import { messageReply, notice } from "./reply.ts";
import { isPaletteUid, looksLikeUid } from "./resolve.ts";
import type { Reply } from "./types.ts";

/**
 * An edge host by UID or exact name in the projects a command reads (issue 39): shared by
 * `why <edge host>` and `/palette edge host`, so both find the same host the same way.
 */

export type EdgeReads = Pick<
  PaletteEdgeApi,
  "searchEdgeHosts" | "getEdgeHost" | "edgeHostEventsPage"
>;

/** The bot's Palette client reads edge hosts; a read-only fake of PaletteApi may not. */
export function edgeReadsOf(palette: PaletteApi): EdgeReads | undefined {
  const edge = palette as PaletteApi & Partial<EdgeReads>;
  return typeof edge.searchEdgeHosts === "function" &&
    typeof edge.getEdgeHost === "function" &&
    typeof edge.edgeHostEventsPage === "function"
    ? (edge as EdgeReads)
    : undefined;
}

export type Found =
  | { kind: "found"; host: EdgeHostSummary }
  | { kind: "none" }
  | { kind: "many"; hosts: EdgeHostSummary[] };

export async function findEdgeHost(
  ref: string,
  scopes: readonly Scope[],
  edge: EdgeReads,
): Promise<Found> {
  if (isPaletteUid(ref) || looksLikeUid(ref)) {
    for (const scope of scopes) {
      try {
        const host = await edge.getEdgeHost(ref, scope);
        return {
          kind: "found",
          host: { ...host, projectUid: host.projectUid ?? scope.projectUid },
        };
      } catch (error) {
        if (!(error instanceof PaletteError && error.status === 404)) throw error;
      }
    }
  }
  const hosts: EdgeHostSummary[] = [];
  for (const scope of scopes) {
    const page = await edge.searchEdgeHosts({
      ...(scope.projectUid ? { projectUid: scope.projectUid } : {}),
      name: ref,
      limit: 50,
    });
    hosts.push(
      ...page.items.map((host) => ({ ...host, projectUid: host.projectUid ?? scope.projectUid })),
    );
  }
  const unique = [...new Map(hosts.map((host) => [host.uid, host])).values()];
  if (unique.length === 1) return { kind: "found", host: unique[0]! };
  return unique.length === 0 ? { kind: "none" } : { kind: "many", hosts: unique };
}

/** Several hosts answer to one name: the first ten, so the person can ask again by UID. */
export function sameNameReply(ref: string, hosts: readonly EdgeHostSummary[]): Reply {
  const listed = hosts
    .slice(0, 10)
    .map(
      (host) =>
        `• ${code(host.name)} · UID ${code(host.uid)}${host.projectUid ? ` · project ${code(host.projectUid)}` : ""}`,
    )
    .join("\n");
  return messageReply(
    notice(
      `:mag: ${hosts.length} edge hosts are named ${code(ref)}; ask again with one UID:\n${listed}`,
    ),
    `${hosts.length} edge hosts are named ${ref}`,
  );
}
