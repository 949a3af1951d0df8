import { CHANGE_PERMISSION } from "../model/change.ts";
import { type ChangeRecord, ChangeStore } from "../store/changes.ts";
import { requesterNotAllowed, requesterTold } from "../views/change-drift.ts";
import { auditExpired, auditStep, subjectOf } from "./audit-trail.ts";
import type { HeldClaim } from "./claim.ts";
import { staleness, unreadRefusal } from "./confirm.ts";
import { claimHeld, type Execution, executeChange } from "./execute.ts";
import { guardPlan } from "./guard.ts";
import type { ChangeDeps } from "./types.ts";

export type Decision =
  | { kind: "refused"; mrkdwn: string; text: string }
  /**
   * decided before (by someone else, or the same click again), or expired: what it is now;
   * `expired`: the other requests this click found out of time and closed (their cards to edit)
   */
  | { kind: "settled"; record: ChangeRecord; expired?: ChangeRecord[] }
  | { kind: "rejected"; record: ChangeRecord }
  /**
   * approved, but Palette no longer matches the plan, the requester is no longer allowed, or
   * Palette could not be read to check: it did not run. `requester`: what they are told.
   */
  | {
      kind: "stale";
      record: ChangeRecord;
      mrkdwn: string;
      text: string;
      requester: { mrkdwn: string; text: string };
    }
  | ({ approved: true } & Execution);

/**
 * A second person's Approve or Reject on a request card. The requester cannot approve their
 * own but may always withdraw it (Reject); the approver needs the verb's ALLOW_* too, to approve
 * or reject; a freeze holds an approval back, never a rejection; the plan is
 * checked against Palette again. Two approvers clicking at once: the store lets one decision
 * land, so the change is sent once.
 */
export async function decideChange(
  id: number,
  approver: { userId: string; channelId: string },
  decision: "approve" | "reject",
  deps: ChangeDeps,
): Promise<Decision> {
  const store = new ChangeStore(deps.db, deps.clock);
  const record = await store.get(id);
  if (!record) {
    return {
      kind: "refused",
      mrkdwn: "I have no record of that request.",
      text: "Unknown request.",
    };
  }
  if (record.status !== "awaiting_approval") return { kind: "settled", record };
  if ((record.expiresAt ?? 0) <= deps.clock.now()) {
    const expired = await store.expireDue();
    await auditExpired(deps.audit, expired);
    return {
      kind: "settled",
      record: (await store.get(id)) ?? record,
      expired: expired.filter((other) => other.id !== id),
    };
  }
  const { plan } = record;
  if (decision === "approve" && approver.userId === record.requester) {
    await auditStep(deps.audit, subjectOf(record), {
      step: "refused",
      reason: "own request",
      by: approver.userId,
    });
    return {
      kind: "refused",
      mrkdwn: ":no_entry: You asked for this change, so someone else must approve it.",
      text: "You cannot approve your own change.",
    };
  }
  // Rejecting stops a change, so a freeze never holds it back. The requester may always
  // withdraw their own request (even after losing the verb's ALLOW_*); anyone else rejecting
  // must be someone who could approve it, on the verb's ALLOW_* list.
  const withdrawal = decision === "reject" && approver.userId === record.requester;
  if (!withdrawal) {
    const guard = await guardPlan(deps, approver.userId, plan, {
      requester: record.requester,
      changeId: id,
      permissionOnly: decision === "reject",
    });
    if (!guard.allowed) return { kind: "refused", mrkdwn: guard.mrkdwn, text: guard.text };
  }
  if (decision === "reject") {
    const rejected = await store.decide(id, approver.userId, "reject");
    if (!rejected) return { kind: "settled", record: (await store.get(id)) ?? record };
    await auditStep(deps.audit, subjectOf(rejected), { step: "rejected", by: approver.userId });
    return { kind: "rejected", record: rejected };
  }
  const claimed = await store.decide(id, approver.userId, "approve");
  if (!claimed) return { kind: "settled", record: (await store.get(id)) ?? record };
  // claimed: its heartbeat starts now, so the re-read of Palette below (which may wait out a
  // Retry-After) does not look like a dead sender to the lease holder
  const claim = claimHeld(store, id, deps);
  try {
    return await sendApproved(id, record, claimed, claim, approver, deps);
  } finally {
    claim.release();
  }
}

/** an approved change, claimed: the requester's permission and the plan checked again, then sent */
async function sendApproved(
  id: number,
  record: ChangeRecord,
  claimed: ChangeRecord,
  claim: HeldClaim,
  approver: { userId: string; channelId: string },
  deps: ChangeDeps,
): Promise<Decision> {
  const store = new ChangeStore(deps.db, deps.clock);
  const { plan } = record;
  await auditStep(deps.audit, subjectOf(claimed), { step: "approved", by: approver.userId });
  let stale: Awaited<ReturnType<typeof staleness>>;
  // the requester's ALLOW_* again: an admin may have taken them off it since they asked
  const notAllowed = (await deps.policy.allows(record.requester, CHANGE_PERMISSION[plan.verb]))
    ? undefined
    : requesterNotAllowed(plan, record.requester);
  try {
    stale = notAllowed
      ? { kind: "refused", ...notAllowed }
      : await staleness(
          plan,
          { userId: record.requester, channelId: record.channel },
          deps,
          "it was asked",
        );
  } catch (error) {
    // claimed but not checked: it ends here, not sent, rather than waiting in `executing`
    stale = unreadRefusal(error);
  }
  if (stale) {
    const reason = stale.reason ?? stale.text;
    const failed = await store.move(id, "executing", "failed", { reason });
    // refused at the approval's re-check, and so ended: not sent
    await auditStep(deps.audit, subjectOf(claimed), {
      step: "refused",
      // Palette refused the requester's own key (IDENTITY=strict): theirs, not an unread Palette
      reason: stale.changed
        ? "drift"
        : notAllowed
          ? "permission"
          : stale.forRequester
            ? "identity"
            : "unchecked",
      // a permission that lapsed is the requester's; the rest refuse the approval
      by: notAllowed ? record.requester : approver.userId,
      detail: stale.changed ? { changed: stale.changed } : { said: stale.text },
    });
    await auditStep(deps.audit, subjectOf(failed ?? claimed), {
      step: "end",
      outcome: "failed",
      line: stale.text,
    });
    return {
      kind: "stale",
      record: failed ?? claimed,
      mrkdwn: stale.mrkdwn,
      text: stale.text,
      requester: requesterTold(
        plan,
        approver.userId,
        notAllowed ?? { reason, forRequester: stale.forRequester },
      ),
    };
  }
  return { approved: true, ...(await executeChange(claimed, deps, claim)) };
}
