/** The alert kind the bot raises itself from cluster health (Palette lists it as supported). */
export const CLUSTER_HEALTH = "ClusterHealth";

/** An alert the bot has raised for a cluster and not yet resolved. */
export interface RaisedAlert {
  clusterUid: string;
  kind: string;
  reason: string;
  raisedAt: string;
}

/** One key per (cluster, alert kind); NUL cannot occur in either part. */
export const alertKey = (clusterUid: string, kind: string) => `${clusterUid}\u0000${kind}`;
