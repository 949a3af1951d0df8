import type { Logger } from "../../log.ts";
import type { ClusterSnap } from "../../model/cluster.ts";
import type { PaletteApi } from "../../palette/api.ts";
import { PaletteError } from "../../palette/errors.ts";
import type { Cluster } from "../../palette/schemas.ts";
import { tagsOf } from "../../palette/tags.ts";

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
  /** with `getClusterOverview`, a cluster still there is read whole (its health too) */
  palette: Pick<PaletteApi, "getCluster"> & Partial<Pick<PaletteApi, "getClusterOverview">>;
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
  return (await lookUpAbsent(missing, options)).verdicts;
}

/**
 * `confirmAbsent`, and for each cluster still there, what it is now: the GET's state and (with
 * the overview) its health, so a change the listing hid is announced in this very cycle instead
 * of waiting for a listing that shows it (which a restart can come before). What Palette does not
 * say (a failed overview, no labels) stays as last seen.
 */
export async function lookUpAbsent(
  missing: readonly ClusterSnap[],
  options: ConfirmOptions,
): Promise<{ verdicts: Map<string, Absence>; present: Map<string, ClusterSnap> }> {
  const verdicts = new Map<string, Absence>();
  const present = new Map<string, ClusterSnap>();
  const failures: Array<{ cluster: string; err: string }> = [];
  const queue = [...missing];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const cluster = next;
      const scope = cluster.project ? { projectUid: cluster.project } : {};
      try {
        const found = await options.palette.getCluster(cluster.uid, scope);
        const deleted = isMarkedDeleted(found);
        verdicts.set(cluster.uid, deleted ? "deleted" : "present");
        if (!deleted) present.set(cluster.uid, await asNow(cluster, found, options));
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
  return { verdicts, present };
}

async function asNow(
  before: ClusterSnap,
  found: Cluster,
  options: ConfirmOptions,
): Promise<ClusterSnap> {
  let state = found.status?.state ?? "";
  let health = "";
  if (options.palette.getClusterOverview) {
    try {
      const overview = await options.palette.getClusterOverview(
        before.uid,
        before.project ? { projectUid: before.project } : {},
      );
      state = overview.status?.state || state;
      health = overview.status?.health?.state ?? "";
    } catch {
      // the GET already proved it exists; its health waits for the next listing
    }
  }
  const labels = found.metadata?.labels;
  return {
    ...before,
    name: found.metadata?.name || before.name,
    state: state || before.state,
    health: health || before.health,
    tags: labels ? tagsOf(labels) : before.tags,
  };
}
