import type { Cluster, ClusterSummary } from "./schemas.ts";

/**
 * The project a cluster lives in, as Palette says it: a search result names it in
 * `specSummary.projectMeta`, and every cluster object carries it in
 * `metadata.annotations.projectUid` (with `scope: project`). A cluster fetched by UID in the
 * tenant scope (PALETTE_PROJECTS empty) has only the annotation to say which project's
 * freezes, boundary and links apply. Undefined for a tenant-scoped cluster (`scope: tenant`)
 * or when Palette says nothing. Pure.
 */
export function clusterProjectUid(
  cluster: Cluster | ClusterSummary | null | undefined,
): string | undefined {
  if (!cluster) return undefined;
  const listed = "specSummary" in cluster ? cluster.specSummary?.projectMeta?.uid : undefined;
  if (listed) return listed;
  const annotations = cluster.metadata?.annotations;
  if (annotations?.scope === "tenant") return undefined;
  return annotations?.projectUid || undefined;
}
