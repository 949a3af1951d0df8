import type { Logger } from "../log.ts";
import type { ClusterSnap } from "../model/cluster.ts";
import type { PaletteApi } from "../palette/api.ts";
import { PaletteError } from "../palette/errors.ts";
import type { Cluster } from "../palette/schemas.ts";

/**
 * What a GET by UID says of a cluster the listing left out:
 * - `deleted`: Palette no longer has it (404), or keeps it only as deleted;
 * - `present`: it still exists, the listing just did not show it;
 * - `unknown`: the GET failed; ask again next cycle.
 */
export type Absence = "deleted" | "present" | "unknown";

/** Palette keeps soft-deleted clusters readable by UID: state `Deleted` or a deletion mark. */
export function isMarkedDeleted(cluster: Cluster): boolean {
  const state = cluster.status?.state?.trim().toLowerCase() ?? "";
  return state === "deleted" || Boolean(cluster.metadata?.deletionTimestamp);
}

export interface ConfirmOptions {
  palette: Pick<PaletteApi, "getCluster">;
  logger: Logger;
  /** GETs in flight at once; default 4 */
  parallelism?: number;
}

/**
 * Absence is not deletion: a listing can skip a cluster (pages shifting under a continue token,
 * a search index behind), so each cluster missing from this cycle's listing is looked up by UID,
 * in its own project, before anyone hears it is gone. Never throws: a failed GET is `unknown`.
 */
export async function confirmAbsent(
  missing: readonly ClusterSnap[],
  options: ConfirmOptions,
): Promise<Map<string, Absence>> {
  const verdicts = new Map<string, Absence>();
  const failures: Array<{ cluster: string; err: string }> = [];
  const queue = [...missing];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const cluster = next;
      try {
        const found = await options.palette.getCluster(
          cluster.uid,
          cluster.project ? { projectUid: cluster.project } : {},
        );
        verdicts.set(cluster.uid, isMarkedDeleted(found) ? "deleted" : "present");
      } catch (error) {
        if (error instanceof PaletteError && error.kind === "not_found") {
          verdicts.set(cluster.uid, "deleted");
        } else {
          verdicts.set(cluster.uid, "unknown");
          failures.push({ cluster: cluster.uid, err: String(error) });
        }
      }
    }
  };
  const width = Math.max(1, Math.min(options.parallelism ?? 4, missing.length));
  await Promise.all(Array.from({ length: width }, worker));
  if (failures.length > 0) {
    options.logger.warn(
      { clusters: failures.length, first: failures[0] },
      "clusters missing from the listing could not be looked up; kept, asked again next cycle",
    );
  }
  return verdicts;
}
