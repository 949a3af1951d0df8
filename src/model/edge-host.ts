/**
 * An edge host as the bot remembers it (issue 39): what Palette said at the last read, and what
 * only the bot can say because Palette keeps no last-seen time for a host: when it first read
 * the host unhealthy, when it last read it healthy, and what the channels were told of it.
 * Times are epoch milliseconds.
 */

/** What the channels were last told of a host: nothing, that it went dark, that it is unpaired. */
export type EdgeTold = "" | "unhealthy" | "unpaired";

export interface EdgeHostRecord {
  uid: string;
  /** the poll scope it was read in: a project UID, or "" for the tenant */
  scope: string;
  projectUid: string;
  name: string;
  /** the value of the site tag (EDGE_SITE_TAG), when the host has one */
  site?: string;
  tags: string[];
  clusterUid?: string;
  clusterName?: string;
  /** `ready` | `unpaired` | `in-use` */
  state: string;
  /** `healthy` | `unhealthy` | "" (never reported) */
  health: string;
  message?: string;
  agentVersion?: string;
  /** Palette's lastModifiedTimestamp: the incremental read's watermark */
  modifiedAt?: number;
  firstSeenAt: number;
  seenAt: number;
  /** the first read that found it unhealthy, in this stretch of darkness */
  unhealthySince?: number;
  /** the last read that found it healthy */
  lastSeenHealthy?: number;
  told: EdgeTold;
}
