import type { EdgeHostRecord } from "../model/edge-host.ts";

/** What one edge host's read can tell (observe.ts), and what flapping (flapping.ts) makes of it. */

export type EdgeNews =
  | { kind: "unhealthy"; host: EdgeHostRecord; since: number }
  | { kind: "unpaired"; host: EdgeHostRecord }
  | { kind: "recovered"; host: EdgeHostRecord; was: "unhealthy" | "unpaired"; darkMs?: number }
  | { kind: "gone"; host: EdgeHostRecord; was: "unhealthy" | "unpaired" }
  /** dark and back more than FLAP_MAX_CHANGES times within the window (flapping.ts) */
  | { kind: "flapping"; host: EdgeHostRecord; changes: number }
  /** a flapping host held steady a whole window: dark still, or healthy */
  | { kind: "settled"; host: EdgeHostRecord; dark: boolean };

export interface Observation {
  /** undefined: forget the host */
  record: EdgeHostRecord | undefined;
  news?: EdgeNews;
}
