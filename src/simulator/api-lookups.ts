import { notFound } from "./api-replies.ts";
import type { SimCluster } from "./fleet.ts";
import type { SimState } from "./state.ts";

/**
 * How a route finds the cluster it is about, in the request's project scope: one place for
 * Palette's rule that a cluster outside the scope (or, for most routes, already Deleted) is a
 * 404, so the route modules cannot drift apart on it.
 */
export interface ClusterLookups {
  /** A cluster visible in the scope; Deleted ones stay readable by uid, as in Palette. */
  scopedCluster(uid: string, projectUid: string | undefined): SimCluster;
  /** A cluster visible in the scope and not Deleted. */
  liveCluster(uid: string, projectUid: string | undefined): SimCluster;
  /** The cluster behind a cloud config (`/v1/cloudconfigs/{kind}/{configUid}`), in the scope. */
  configCluster(kind: string, configUid: string, projectUid: string | undefined): SimCluster;
}

export function clusterLookups(state: SimState): ClusterLookups {
  const scopedCluster = (uid: string, projectUid: string | undefined): SimCluster => {
    const cluster = state.cluster(uid);
    if (!cluster || (projectUid && cluster.projectUid !== projectUid)) {
      throw notFound(`Cluster '${uid}'`);
    }
    return cluster;
  };
  const liveCluster = (uid: string, projectUid: string | undefined): SimCluster => {
    const cluster = scopedCluster(uid, projectUid);
    if (state.condition(cluster).state === "Deleted") throw notFound(`Cluster '${uid}'`);
    return cluster;
  };
  const configCluster = (kind: string, configUid: string, projectUid: string | undefined) => {
    const cluster = state.clusterByConfig(configUid);
    if (
      !cluster ||
      cluster.provider !== kind ||
      (projectUid && cluster.projectUid !== projectUid)
    ) {
      throw notFound(`Cloud config '${kind}/${configUid}'`);
    }
    return cluster;
  };
  return { scopedCluster, liveCluster, configCluster };
}
