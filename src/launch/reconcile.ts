import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import type { PaletteApi } from "../palette/api.ts";
import { AuditLog } from "../store/audit.ts";
import { type LaunchRecord, LaunchStore } from "../store/launches.ts";
import type { SqlDb } from "../store/sql.ts";

/**
 * Settles a reservation whose create nobody saw answered: the process crashed between reserving
 * the name and recording Palette's answer, the answer was lost (time-out, dropped connection),
 * or the store refused to record it. Palette is asked by name in the reservation's project
 * (live clusters only): a cluster there is recorded as launched and followed like any other;
 * none frees the name. A failed question settles nothing, so it is asked again later.
 */

export interface ReconcileDeps {
  db: SqlDb;
  palette: PaletteApi;
  clock: Clock;
  logger: Logger;
}

export type ReconcileResult = "created" | "released" | "waiting";

/**
 * A create Palette received is answered (or dropped) well within this; until then "no such
 * cluster" may only mean "not yet", so the name is kept.
 */
export const RELEASE_GRACE_MS = 2 * 60_000;

/** how far Palette's clock may be from the bot's when judging which cluster came first */
const CLOCK_SKEW_MS = 10 * 60_000;

/**
 * The uid of the live cluster the reservation's create made, if Palette has one. A cluster of
 * that name created well before the reservation is someone else's: the create cannot have made it.
 */
export async function findLaunched(
  palette: PaletteApi,
  record: LaunchRecord,
): Promise<string | undefined> {
  const scope = record.projectUid ? { projectUid: record.projectUid } : {};
  for await (const cluster of palette.searchAllClusters({ ...scope, name: record.name })) {
    const uid = cluster.metadata?.uid;
    if (!uid || cluster.metadata?.name !== record.name) continue;
    if (cluster.status?.state === "Deleted") continue;
    const born = Date.parse(cluster.metadata?.creationTimestamp ?? "");
    if (!Number.isNaN(born) && born < record.createdAt - CLOCK_SKEW_MS) continue;
    return uid;
  }
  return undefined;
}

/** Throws when Palette or the store fail; the reservation is then left as it was. */
export async function reconcileReservation(
  record: LaunchRecord,
  deps: ReconcileDeps,
  graceMs = RELEASE_GRACE_MS,
): Promise<ReconcileResult> {
  const target = `${record.provider}/${record.name}`;
  const uid = await findLaunched(deps.palette, record);
  if (uid) {
    // the launch and its audit record land together, as on the ordinary path
    const recorded = await deps.db.transaction(async (tx) => {
      if (!(await new LaunchStore(tx, deps.clock).created(record.id, uid))) return false;
      await new AuditLog(tx, deps.clock).record({
        userId: record.requester,
        action: "launch",
        target,
        outcome: "created",
        detail: JSON.stringify({
          projectUid: record.projectUid || undefined,
          clusterUid: uid,
          recovered: "found in Palette by name; the create's answer was not recorded",
        }),
      });
      return true;
    });
    if (recorded) {
      deps.logger.info(
        { launchId: record.id, name: record.name, clusterUid: uid },
        "launch reservation reconciled: Palette has the cluster; following it",
      );
    }
    return "created";
  }
  if (deps.clock.now() - record.createdAt < graceMs) return "waiting";
  await deps.db.transaction(async (tx) => {
    await new LaunchStore(tx, deps.clock).release(record.id);
    await new AuditLog(tx, deps.clock).record({
      userId: record.requester,
      action: "launch",
      target,
      outcome: "failed",
      detail: JSON.stringify({
        projectUid: record.projectUid || undefined,
        reason: "no cluster of that name in Palette; the name is free again",
      }),
    });
  });
  deps.logger.info(
    { launchId: record.id, name: record.name },
    "launch reservation reconciled: Palette has no such cluster; name released",
  );
  return "released";
}
