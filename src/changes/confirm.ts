import type { ChangePlan } from "../model/change.ts";
import { planDrift } from "../model/plan-drift.ts";
import { describeForUser } from "../palette/errors.ts";
import { type ChangeRecord, ChangeStore } from "../store/changes.ts";
import type { Requester } from "../verb-kit/types.ts";
import { differenceLine, driftRefusal } from "../views/change-drift.ts";
import { escapeMrkdwn } from "../views/mrkdwn.ts";
import { auditStep, subjectOf, subjectOfPlan } from "./audit-trail.ts";
import { type Execution, executeChange } from "./execute.ts";
import { guardPlan } from "./guard.ts";
import { askOf, planChange } from "./plan.ts";
import { readsAs, refusalLines } from "./reads-as.ts";
import type { ChangeDeps } from "./types.ts";

export type Confirmation =
  /** not allowed, frozen, or Palette no longer matches the plan: nothing was sent */
  | { kind: "refused"; mrkdwn: string; text: string }
  /** this confirmation was recorded before (a Slack retry, a double submit, another replica) */
  | { kind: "duplicate"; record: ChangeRecord }
  /** APPROVAL_REQUIRED: waiting for a second person */
  | { kind: "awaiting"; record: ChangeRecord }
  | Execution;

/**
 * A person confirmed the change the modal showed. Checked again from the start (permission,
 * freezes, then Palette read afresh and compared with what the modal showed), claimed once by
 * the confirmation's key, then sent to Palette, or put up for approval.
 */
export async function confirmChange(
  input: { requestKey: string; plan: ChangePlan; requester: Requester },
  deps: ChangeDeps,
): Promise<Confirmation> {
  const { plan, requester } = input;
  const store = new ChangeStore(deps.db, deps.clock);
  // a Slack retry after the first delivery went through: Palette has moved (by this very change),
  // so the checks below would call it stale; it is the same confirmation, already recorded
  const earlier = await store.byKey(input.requestKey);
  if (earlier) return { kind: "duplicate", record: earlier };
  // PALETTE_PROJECTS is the boundary for changes as for reads (the plan came back through Slack)
  if (deps.projects.length > 0 && !deps.projects.includes(plan.cluster.projectUid)) {
    await auditStep(deps.audit, subjectOfPlan(plan, requester.userId), {
      step: "refused",
      reason: "scope",
      by: requester.userId,
      detail: { rule: "PALETTE_PROJECTS" },
    });
    return {
      kind: "refused",
      mrkdwn: "That cluster is not in a project this bot watches (PALETTE_PROJECTS).",
      text: "Not in a watched project.",
    };
  }
  const guard = await guardPlan(deps, requester.userId, plan);
  if (!guard.allowed) return { kind: "refused", mrkdwn: guard.mrkdwn, text: guard.text };
  let stale: Awaited<ReturnType<typeof staleness>>;
  try {
    stale = await staleness(plan, requester, deps);
  } catch (error) {
    // the modal has closed: the person is told here, not only the log
    const refusal = unreadRefusal(error);
    await auditStep(deps.audit, subjectOfPlan(plan, requester.userId), {
      step: "refused",
      reason: "unchecked",
      by: requester.userId,
      detail: { said: refusal.text },
    });
    return refusal;
  }
  if (stale) {
    await auditStep(deps.audit, subjectOfPlan(plan, requester.userId), {
      step: "refused",
      reason: stale.changed ? "drift" : "identity",
      by: requester.userId,
      detail: stale.changed ? { changed: stale.changed } : { said: stale.text },
    });
    const { changed: _changed, ...refusal } = stale;
    return refusal;
  }
  const needsApproval = deps.approvals?.verbs.includes(plan.verb) ?? false;
  const claim = await store.create({
    requestKey: input.requestKey,
    plan,
    requester: requester.userId,
    channel: requester.channelId,
    status: needsApproval ? "awaiting_approval" : "executing",
    ...(needsApproval ? { expiresAt: deps.clock.now() + deps.approvals!.ttlMs } : {}),
  });
  if (claim.kind === "duplicate") return claim;
  await auditStep(deps.audit, subjectOf(claim.record), { step: "request", needsApproval });
  if (needsApproval) return { kind: "awaiting", record: claim.record };
  return executeChange(claim.record, deps);
}

/**
 * The approval request reached nobody (neither its channel nor the requester's DM took it): the
 * change ends here, not sent, with its `end` in the audit like every other end; undefined when
 * the row had already left awaiting approval.
 */
export async function endUnreachedApproval(
  record: ChangeRecord,
  deps: Pick<ChangeDeps, "db" | "clock" | "audit">,
): Promise<ChangeRecord | undefined> {
  const line = "the approval request could not be posted";
  const ended = await new ChangeStore(deps.db, deps.clock).move(
    record.id,
    "awaiting_approval",
    "failed",
    { reason: line },
  );
  if (!ended) return undefined;
  await auditStep(deps.audit, subjectOf(ended), { step: "end", outcome: "failed", line });
  return ended;
}

/** Palette could not be read to check the plan again: not sent, and the person hears why */
export function unreadRefusal(error: unknown): { kind: "refused"; mrkdwn: string; text: string } {
  const why = describeForUser(error);
  return {
    kind: "refused",
    mrkdwn: `:warning: Not sent: Palette could not be read to check the change again. ${escapeMrkdwn(why)}\nAsk again once Palette answers.`,
    text: `Not sent: Palette could not be read to check the change again. ${why}`,
  };
}

/**
 * Palette read again and the whole plan compared with what the modal (or the request card)
 * showed, or a refusal that says what changed (or that the requester cannot act in Palette now).
 */
export async function staleness(
  plan: ChangePlan,
  requester: Requester,
  deps: ChangeDeps,
  since: "the confirmation opened" | "it was asked" = "the confirmation opened",
): Promise<
  // `changed`: what drifted, for the audit; absent when the refusal is the requester's own;
  // `reason`: plain, for the request card (which escapes it)
  | {
      kind: "refused";
      mrkdwn: string;
      text: string;
      changed?: string[];
      reason?: string;
      /** the requester's own line, when the refusal was worded for the approver */
      forRequester?: string;
    }
  | undefined
> {
  // under IDENTITY=linked|strict: someone who can no longer act is refused before the read, and
  // under strict Palette is read with the requester's key (src/changes/reads-as.ts)
  const reads = await readsAs(
    {
      requester,
      verb: plan.verb,
      cluster: plan.cluster.name,
      project: plan.cluster.projectUid || undefined,
      // at an approval the refusal is read by the approver; the requester's own reason goes on
      reader: since === "it was asked" ? "approver" : "requester",
      // the confirmation and the approval audit their refusals themselves
      audit: false,
    },
    deps,
    (readDeps) => planChange(askOf(plan), { ...readDeps, requester }),
  );
  if (reads.kind === "refused") {
    return {
      kind: "refused",
      ...refusalLines(reads.reply),
      reason: reads.reason,
      ...(reads.forRequester ? { forRequester: reads.forRequester } : {}),
    };
  }
  const fresh = reads.value;
  // the whole plan compared (src/model/plan-drift.ts), not only the cluster's state
  const lines =
    fresh.kind === "plan" ? planDrift(plan, fresh.plan).map(differenceLine) : [fresh.reply.text];
  if (lines.length === 0) return undefined;
  const refusal = driftRefusal(lines, since);
  return {
    kind: "refused",
    mrkdwn: refusal.mrkdwn,
    text: refusal.text,
    reason: refusal.reason,
    changed: lines,
  };
}
