import { actingDetail, actingFor, personalRefusalLines } from "../identity/acting.ts";
import type { ChangePlan } from "../model/change.ts";
import type { PaletteApi } from "../palette/api.ts";
import { describeForUser, PaletteError } from "../palette/errors.ts";
import { machinePoolUpdateBody } from "../palette/machine-pool-body.ts";
import { withRequestChecks } from "../palette/priority.ts";
import type { Provider } from "../palette/providers-list.ts";
import { type ChangeRecord, ChangeStore } from "../store/changes.ts";
import { freezeRefusal } from "../views/change.ts";
import { auditNotSent, auditStep, subjectOf } from "./audit-trail.ts";
import { ClaimLost, ClaimStale, type HeldClaim, holdClaim } from "./claim.ts";
import { frozen } from "./guard.ts";
import { planScope } from "./progress.ts";
import { CHANGE_ACTION } from "./reads-as.ts";
import type { ChangeDeps } from "./types.ts";

export type Execution =
  | { kind: "accepted"; record: ChangeRecord; paletteUser?: string }
  | { kind: "failed"; record: ChangeRecord; reason: string; paletteUser?: string }
  /** the request went out, Palette's answer did not come back: the follower finds out */
  | { kind: "unconfirmed"; record: ChangeRecord; reason: string; paletteUser?: string }
  /**
   * the lease holder took the claim over (its heartbeat had stopped): before the write nothing
   * was sent from here; after it, Palette's answer is not recorded from here. Either way the
   * lease holder's card tells the change's end, so this sender shows nothing.
   */
  | { kind: "taken over"; record: ChangeRecord };

/** what the requester reads while the follower checks Palette for an unanswered request */
export const UNCONFIRMED_LINE =
  "Palette did not answer, so it may have happened: checking Palette (it is not sent again)";

/**
 * Sends a claimed change (status `executing`, held by this caller alone) to Palette: once, as
 * the requester's linked Palette user when IDENTITY=linked. The row moves to `accepted` or
 * `failed` with Palette's reason, and the audit names requester, approver and Palette user.
 */
export async function executeChange(
  record: ChangeRecord,
  deps: ChangeDeps,
  /** the claim's heartbeat, when the caller started it at the claim (an approval's re-read) */
  held?: HeldClaim,
): Promise<Execution> {
  const store = new ChangeStore(deps.db, deps.clock);
  // the row says this sender is at work for as long as it is (src/changes/claim.ts)
  const claim = held ?? claimHeld(store, record.id, deps);
  try {
    return await sendClaimed(record, store, claim, deps);
  } finally {
    claim.release();
  }
}

/** starts the heartbeat of a claim just taken (status `executing`, stamped in the store) */
export function claimHeld(store: ChangeStore, changeId: number, deps: ChangeDeps): HeldClaim {
  return holdClaim(store, changeId, {
    timers: deps.timers,
    logger: deps.logger,
    clock: deps.clock,
  });
}

/** a move of this sender's claim that found the row taken over: the lease holder tells it */
function takenOver(record: ChangeRecord, deps: ChangeDeps, when: string): Execution {
  deps.logger.warn({ changeId: record.id }, `change taken over by the lease holder ${when}`);
  return { kind: "taken over", record };
}

async function sendClaimed(
  record: ChangeRecord,
  store: ChangeStore,
  claim: HeldClaim,
  deps: ChangeDeps,
): Promise<Execution> {
  const frozenOut = await notSentWhenFrozen(record, store, deps);
  if (frozenOut) return frozenOut;
  let acting: Awaited<ReturnType<typeof actingFor>>;
  try {
    acting = await actingFor(
      { userId: record.requester, channelId: record.channel },
      deps.identity,
    );
  } catch (error) {
    // the person's key could not be made (LINK_METHOD=email minting it failed): nothing was sent
    const reason = `Not sent: the bot could not make the short-lived Palette key it uses to act as you, so nothing was changed. ${describeForUser(error)}`;
    deps.logger.warn({ err: String(error), changeId: record.id }, "change not sent: no key");
    const failed = await store.move(record.id, "executing", "failed", {
      reason,
      card: { status: "failed", line: reason },
    });
    if (!failed) return takenOver(record, deps, "before its key was made");
    await auditNotSent(deps.audit, failed, "no key", reason);
    return { kind: "failed", record: failed, reason };
  }
  if (acting.kind === "refused") {
    const reason = acting.reply.text;
    const failed = await store.move(record.id, "executing", "failed", {
      reason,
      card: { status: "failed", line: reason },
    });
    if (!failed) return takenOver(record, deps, "before it was sent");
    await auditNotSent(deps.audit, failed, "not linked", reason);
    return { kind: "failed", record: failed, reason };
  }
  const as = actingDetail(acting);
  const palette = acting.kind === "person" ? acting.palette : deps.palette;
  // Palette's answer to the write, in the requester's name and the Palette user's
  const audit = (
    outcome: "accepted" | "failed" | "unconfirmed",
    extra: Record<string, unknown> = {},
  ) =>
    auditStep(deps.audit, subjectOf(record), {
      step: "answer",
      outcome,
      paletteUser: as.paletteUser,
      detail: { ...(as.paletteUserUid ? { paletteUserUid: as.paletteUserUid } : {}), ...extra },
    });
  let paletteRef: string | undefined;
  const wire: Wire = {
    sent: false,
    write: (request) =>
      withRequestChecks(
        {
          // before every attempt (a re-login's or a Retry-After's re-send too): the claim is
          // checked, and its heartbeat refreshed, in the store
          gate: () => claim.fence(),
          // right before the bytes go, after the client's pacing: the last good beat is recent
          // enough that the lease holder cannot have taken the claim over
          lastCheck: async () => {
            claim.assertFresh();
            wire.sent = true;
          },
        },
        request,
      ),
  };
  try {
    paletteRef = await send(record.plan, palette, wire);
  } catch (error) {
    // taken over before the write (or before a re-send of a refused one): nothing was taken
    // by Palette from here, and nothing more is sent
    if (error instanceof ClaimLost) return takenOver(record, deps, "before the write");
    if (error instanceof ClaimStale) return notSentStale(record, store, deps, error);
    if (wire.sent && answerMissing(error)) {
      // it may have happened: never "failed", never sent again; the follower reads Palette
      const reason = UNCONFIRMED_LINE;
      deps.logger.warn(
        { err: String(error), changeId: record.id },
        "change outcome unknown: Palette's answer to the write did not arrive",
      );
      const unconfirmed = await store.move(record.id, "executing", "unconfirmed", {
        reason,
        card: { status: "unconfirmed", line: reason, paletteUser: as.paletteUser },
      });
      if (!unconfirmed) return takenOver(record, deps, "after the write");
      await audit("unconfirmed", describe(record.plan));
      return { kind: "unconfirmed", record: unconfirmed, reason, paletteUser: as.paletteUser };
    }
    // a refusal of the person's own key is theirs, in their name (a 401 unlinks it), never a
    // hint to widen the bot's role or to check PALETTE_API_KEY
    const personal =
      acting.kind === "person" && deps.identity
        ? await personalRefusalLines(
            error,
            acting.link,
            CHANGE_ACTION[record.verb],
            record.plan.cluster.projectUid || undefined,
            deps.identity,
          )
        : undefined;
    const reason = personal?.plain ?? describeForUser(error);
    const failed = await store.move(record.id, "executing", "failed", {
      reason,
      card: { status: "failed", line: reason, paletteUser: as.paletteUser },
    });
    if (!failed) return takenOver(record, deps, "after Palette refused it");
    await audit("failed", { reason });
    return { kind: "failed", record: failed, reason, paletteUser: as.paletteUser };
  } finally {
    if (acting.kind === "person") await acting.palette.close();
  }
  // Palette took it. A move that fails here is never told as the change's end: taken over, the
  // lease holder reads Palette for it; a store error reaches the person as "hit an error", and
  // the lease holder finds the claim once its heartbeat stops
  const accepted = await store.move(record.id, "executing", "accepted", {
    paletteRef,
    card: { status: "accepted", line: "Palette accepted it", paletteUser: as.paletteUser },
  });
  if (!accepted) return takenOver(record, deps, "after Palette accepted it");
  await audit("accepted", describe(record.plan));
  return { kind: "accepted", record: accepted, paletteUser: as.paletteUser };
}

/**
 * The sender's heartbeat is too old to send (ClaimStale): nothing Palette took went out from
 * here (a request refused before it, a 429, a 503 or a 401, was not taken). The change ends
 * "not sent" if the store takes the move; if not, the heartbeat has stopped (the claim is
 * released) and the lease holder takes it over and tells its end.
 */
async function notSentStale(
  record: ChangeRecord,
  store: ChangeStore,
  deps: ChangeDeps,
  stale: ClaimStale,
): Promise<Execution> {
  deps.logger.warn({ changeId: record.id, err: stale.message }, "change not sent: heartbeat stale");
  const reason =
    "Not sent: the bot could not keep its claim on this change fresh in its store (the store was slow or out of reach), so it did not send it and nothing was changed. Ask again.";
  const failed = await store
    .move(record.id, "executing", "failed", { reason, card: { status: "failed", line: reason } })
    .catch(() => undefined);
  if (!failed) return takenOver(record, deps, "while its heartbeat was stale");
  await auditNotSent(deps.audit, failed, "heartbeat stale", reason);
  return { kind: "failed", record: failed, reason };
}

/**
 * The last freeze check, before anything is asked of Palette for this change (a linked
 * person's key included): a freeze set after the confirmation's or the approval's checks (the
 * re-read of Palette takes a while) still stops it. The change ends where the requester sees
 * it, failed with "Not sent: frozen", never left executing. Logs change nothing on the cluster
 * and go on during a freeze, as at the other checks.
 */
async function notSentWhenFrozen(
  record: ChangeRecord,
  store: ChangeStore,
  deps: ChangeDeps,
): Promise<Execution | undefined> {
  if (record.plan.verb === "logs") return undefined;
  const freeze = await frozen(deps, {
    clusterUid: record.plan.cluster.uid,
    projectUid: record.plan.cluster.projectUid || undefined,
  });
  if (!freeze) return undefined;
  const reason = `Not sent: frozen. ${freezeRefusal(freeze).reason}`;
  const failed = await store.move(record.id, "executing", "failed", {
    reason,
    card: { status: "failed", line: reason },
  });
  if (!failed) return { kind: "taken over", record };
  await auditNotSent(deps.audit, failed, "freeze", reason, { freezeId: freeze.id });
  return { kind: "failed", record: failed, reason };
}

/**
 * Palette's answer to a write that went out did not come back (time-out, reset connection, a
 * gateway's 500/502/504): it may have been applied. A 4xx or a 503 says it was not taken.
 */
export function answerMissing(error: unknown): boolean {
  if (!(error instanceof PaletteError)) return false;
  if (NOT_CONNECTED.has(error.code ?? "")) return false;
  if (error.kind === "timeout" || error.kind === "network") return true;
  return error.status === 408 || (error.status >= 500 && error.status !== 503);
}

/** network failures that happen before a byte of the request reached Palette */
const NOT_CONNECTED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/**
 * the write's way out: `write` runs the write's request with the claim checked before each of
 * its attempts and its freshness right before each goes out; `sent` once one went
 */
interface Wire {
  sent: boolean;
  write<T>(request: () => Promise<T>): Promise<T>;
}

/**
 * one Palette request; returns what Palette named the change when it names one. Only the write
 * goes through `wire.write` (reads before it, like the pool's body, may fail without anything
 * having been asked of Palette); it throws ClaimLost when the claim was taken over, ClaimStale
 * when the heartbeat is too old to send.
 */
async function send(
  plan: ChangePlan,
  palette: PaletteApi,
  wire: Wire,
): Promise<string | undefined> {
  const scope = planScope(plan);
  switch (plan.verb) {
    case "scale": {
      const pool = await palette.getMachinePool(
        plan.cluster.cloudType,
        plan.configUid,
        plan.pool,
        scope,
      );
      if (!pool) throw new Error(`pool ${plan.pool} is gone`);
      const body = machinePoolUpdateBody(plan.cluster.cloudType as Provider, pool, plan.to);
      await wire.write(() =>
        palette.updateMachinePool(plan.cluster.cloudType, plan.configUid, plan.pool, body, scope),
      );
      return;
    }
    case "delete":
      await wire.write(() => palette.deleteCluster(plan.cluster.uid, scope));
      return;
    case "cordon":
    case "uncordon":
      await wire.write(() =>
        palette.setMachineMaintenance(
          plan.cluster.cloudType,
          plan.configUid,
          plan.pool,
          plan.machine.uid,
          plan.verb,
          scope,
        ),
      );
      return;
    case "repave":
      await wire.write(() => palette.approveRepave(plan.cluster.uid, scope));
      return;
    case "renew":
      await wire.write(() => palette.renewCertificates(plan.cluster.uid, scope));
      return;
    case "pause":
    case "resume":
      await wire.write(() =>
        palette.setLifecyclePause(plan.cluster.uid, plan.verb === "pause", scope),
      );
      return;
    case "logs":
      return wire.write(() => palette.requestLogs(plan.cluster.uid, plan.lines, scope));
    case "upgrade":
      await wire.write(() =>
        palette.updateClusterProfiles(
          plan.cluster.uid,
          [{ uid: plan.profile.toUid, replaceWithProfile: plan.profile.fromUid }],
          scope,
        ),
      );
      return;
    case "backup":
      // v1ClusterBackupConfig, with the location and settings of the cluster's own policy
      return wire.write(() =>
        palette.backupNow(
          plan.cluster.uid,
          {
            backupLocationUid: plan.location.uid,
            backupLocationName: plan.location.name,
            backupName: plan.backupName,
            durationInHours: plan.ttlHours,
            includeAllDisks: plan.includeAllDisks,
            includeClusterResources: plan.includeClusterResources,
            ...(plan.namespaces.length > 0 ? { namespaces: plan.namespaces } : {}),
          },
          scope,
        ),
      );
  }
}

function describe(plan: ChangePlan): Record<string, unknown> {
  switch (plan.verb) {
    case "scale":
      return { pool: plan.pool, from: plan.from, to: plan.to };
    case "cordon":
    case "uncordon":
      return { pool: plan.pool, machine: plan.machine.name };
    case "upgrade":
      return {
        profile: plan.profile.name,
        from: plan.profile.fromVersion,
        to: plan.profile.toVersion,
      };
    default:
      return {};
  }
}
