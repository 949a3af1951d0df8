import type { ChangePlan, ChangeVerb } from "../model/change.ts";
import type { AuditLog, AuditOutcome, AuditRecord } from "../store/audit.ts";
import type { ChangeRecord } from "../store/changes.ts";

/**
 * The one place that decides what a day-2 change's audit row says (issue 25): one row per step,
 * from the request to its end, each with the change, its cluster and project, the requester,
 * the approver and the Palette user acted as, in columns an export reads without parsing JSON.
 *
 * Steps and their outcomes:
 * - `request`: the confirmation recorded a change (created)
 * - `refused`: permission, scope (PALETTE_PROJECTS), freeze, drift (the cluster changed since the
 *   confirmation or the request), own request, not linked (denied)
 * - `approved` (granted), `rejected` (rejected), `expired` (expired): the second person's part
 * - `answer`: Palette's answer to the write (accepted, failed, or unconfirmed: no answer)
 * - `reconciled`: the lease holder read Palette for a change with no answer (a claim stuck in
 *   `executing` becomes unconfirmed; an unconfirmed one Palette shows becomes accepted)
 * - `end`: where the change ended in Palette (done, failed, or unconfirmed)
 */
export type RefusalReason =
  | "permission"
  | "scope"
  | "freeze"
  | "drift"
  | "own request"
  | "not linked"
  | (string & {});

export type ChangeStep =
  | { step: "request"; needsApproval: boolean }
  | {
      step: "refused";
      reason: RefusalReason;
      /** who was refused: the requester, or the approver at an approval */
      by: string;
      detail?: Record<string, unknown>;
    }
  | { step: "approved"; by: string }
  | { step: "rejected"; by: string }
  | { step: "expired" }
  | {
      step: "answer";
      outcome: "accepted" | "failed" | "unconfirmed";
      paletteUser?: string;
      detail?: Record<string, unknown>;
    }
  /** a stuck claim read as unconfirmed, or an unconfirmed change Palette turned out to show */
  | { step: "reconciled"; outcome: "unconfirmed" | "accepted"; detail?: Record<string, unknown> }
  | {
      step: "end";
      outcome: "done" | "failed" | "unconfirmed" | (string & {});
      /** what the card says at the end */
      line: string;
      took?: string;
    };

/** the change a row is about: before the confirmation there is a plan and no change id */
export interface AuditSubject {
  verb: ChangeVerb | string;
  cluster: { uid?: string; name: string; projectUid?: string };
  requester: string;
  changeId?: number;
  approver?: string;
}

/** a recorded change as the subject of its rows */
export function subjectOf(record: ChangeRecord): AuditSubject {
  return {
    verb: record.plan.verb,
    cluster: record.plan.cluster,
    requester: record.requester,
    changeId: record.id,
    approver: record.approver,
  };
}

/** a plan not recorded yet (refused at the confirmation) as the subject of its row */
export function subjectOfPlan(plan: ChangePlan, requester: string): AuditSubject {
  return { verb: plan.verb, cluster: plan.cluster, requester };
}

/** what the bot's own service account is called in the palette_user column */
export const SERVICE_ACCOUNT = "service account";

/** The row for one step, as data (the tests and the export read the same shape). */
export function auditRow(
  subject: AuditSubject,
  change: ChangeStep,
): Omit<AuditRecord, "at" | "paletteUser"> & { paletteUser?: string } {
  const { userId, outcome, approver } = actorOf(subject, change);
  const detail = detailOf(change);
  return {
    userId,
    action: "change",
    target: `${subject.verb} ${subject.cluster.name}`,
    outcome,
    ...(detail ? { detail: JSON.stringify(detail) } : {}),
    step: change.step,
    ...(subject.changeId !== undefined ? { changeId: subject.changeId } : {}),
    ...(subject.cluster.uid ? { clusterUid: subject.cluster.uid } : {}),
    ...(subject.cluster.projectUid ? { projectUid: subject.cluster.projectUid } : {}),
    requester: subject.requester,
    ...(approver ? { approver } : {}),
    ...(change.step === "answer" ? { paletteUser: change.paletteUser ?? SERVICE_ACCOUNT } : {}),
  };
}

/**
 * Writes one step's row. An end names the Palette user the change was sent as, read from the
 * change's own `answer` row (the follower reads Palette as the service account, but the change
 * was the person's).
 */
export async function auditStep(
  audit: AuditLog,
  subject: AuditSubject,
  change: ChangeStep,
): Promise<AuditRecord> {
  const row = auditRow(subject, change);
  if (change.step === "end" && subject.changeId !== undefined) {
    const sentAs = await audit.paletteUserOf(subject.changeId);
    if (sentAs) row.paletteUser = sentAs;
  }
  return audit.record(row);
}

/**
 * A recorded change refused at a last check (a freeze set since, the person's key not to be
 * had, the requester unlinked): its refusal, and its end, not sent
 */
export async function auditNotSent(
  audit: AuditLog,
  record: ChangeRecord,
  reason: RefusalReason,
  said: string,
  detail: Record<string, unknown> = {},
): Promise<void> {
  const subject = subjectOf(record);
  await auditStep(audit, subject, { step: "refused", reason, by: record.requester, detail });
  await auditStep(audit, subject, { step: "end", outcome: "failed", line: said });
}

/** approval requests whose time ran out (the store marked them expired): one row each */
export async function auditExpired(audit: AuditLog, expired: ChangeRecord[]): Promise<void> {
  for (const record of expired) await auditStep(audit, subjectOf(record), { step: "expired" });
}

function actorOf(
  subject: AuditSubject,
  change: ChangeStep,
): { userId: string; outcome: AuditOutcome; approver?: string } {
  switch (change.step) {
    case "request":
      return { userId: subject.requester, outcome: "created" };
    case "refused":
      return {
        userId: change.by,
        outcome: "denied",
        approver: change.by !== subject.requester ? change.by : subject.approver,
      };
    case "approved":
      return { userId: change.by, outcome: "granted", approver: change.by };
    case "rejected":
      return { userId: change.by, outcome: "rejected", approver: change.by };
    case "expired":
      // nobody acted: the row is the requester's, whose request ran out
      return { userId: subject.requester, outcome: "expired" };
    case "answer":
      return {
        userId: subject.requester,
        outcome: change.outcome,
        approver: subject.approver,
      };
    case "reconciled":
      return { userId: subject.requester, outcome: change.outcome, approver: subject.approver };
    case "end":
      return {
        userId: subject.requester,
        outcome: isOutcome(change.outcome) ? change.outcome : "failed",
        approver: subject.approver,
      };
  }
}

const END_OUTCOMES: readonly AuditOutcome[] = ["done", "failed", "unconfirmed"];
function isOutcome(value: string): value is AuditOutcome {
  return (END_OUTCOMES as readonly string[]).includes(value);
}

function detailOf(change: ChangeStep): Record<string, unknown> | undefined {
  switch (change.step) {
    case "request":
      return { needsApproval: change.needsApproval };
    case "refused":
      return { reason: change.reason, ...change.detail };
    case "answer":
    case "reconciled":
      return change.detail && Object.keys(change.detail).length > 0 ? change.detail : undefined;
    case "end":
      // an end other than done, failed or unconfirmed keeps its own name here
      return {
        line: change.line,
        ...(change.took ? { took: change.took } : {}),
        ...(isOutcome(change.outcome) ? {} : { end: change.outcome }),
      };
    default:
      return undefined;
  }
}
