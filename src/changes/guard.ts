import { CHANGE_PERMISSION, type ChangePlan, type ChangeVerb } from "../model/change.ts";
import { blockingFreeze, type Freeze, type FreezeTarget } from "../model/freeze.ts";
import { FreezeStore } from "../store/freezes.ts";
import type { CommandDeps } from "../verb-kit/types.ts";
import { freezeRefusal } from "../views/change.ts";
import { type AuditSubject, auditStep } from "./audit-trail.ts";

export type Guard = { allowed: true } | { allowed: false; mrkdwn: string; text: string };

export interface GuardAbout {
  requester: string;
  changeId?: number;
  /** the ALLOW_* list only, no freeze (a rejection: it stops a change, as a freeze does) */
  permissionOnly?: boolean;
}

/**
 * The two checks every change passes when it is asked, confirmed and approved: the verb's
 * ALLOW_* list, then the freezes. A refusal is audited and says what to do next.
 */
export async function guardChange(
  deps: Pick<CommandDeps, "policy" | "audit" | "db" | "clock">,
  userId: string,
  verb: ChangeVerb,
  target: FreezeTarget & { name: string },
  /** the recorded change this check is for (at an approval: whose it is), when there is one */
  about?: GuardAbout,
): Promise<Guard> {
  const permission = CHANGE_PERMISSION[verb];
  const subject: AuditSubject = {
    verb,
    cluster: { uid: target.clusterUid, name: target.name, projectUid: target.projectUid },
    requester: about?.requester ?? userId,
    ...(about?.changeId !== undefined ? { changeId: about.changeId } : {}),
  };
  if (!(await deps.policy.allows(userId, permission))) {
    await auditStep(deps.audit, subject, {
      step: "refused",
      reason: "permission",
      by: userId,
      detail: { permission },
    });
    const hint = deps.policy.grantHint(permission);
    return {
      allowed: false,
      mrkdwn: `:no_entry: You are not allowed to ${verb} clusters. ${hint}`.trim(),
      text: `You are not allowed to ${verb} clusters.`,
    };
  }
  // fetching logs changes nothing on the cluster: like the other reads, it goes on during a freeze
  // a rejection stops a change, which is what a freeze is for: only the ALLOW_* list is asked
  const freeze = verb === "logs" || about?.permissionOnly ? undefined : await frozen(deps, target);
  if (freeze) {
    await auditStep(deps.audit, subject, {
      step: "refused",
      reason: "freeze",
      by: userId,
      detail: { freezeId: freeze.id },
    });
    const refusal = freezeRefusal(freeze);
    return { allowed: false, ...refusal };
  }
  return { allowed: true };
}

/** The freeze that covers a target now, if any (launches ask this too). */
export async function frozen(
  deps: Pick<CommandDeps, "db" | "clock">,
  target: FreezeTarget,
): Promise<Freeze | undefined> {
  const freezes = await new FreezeStore(deps.db, deps.clock).active();
  return blockingFreeze(freezes, target, deps.clock.now());
}

/** The same two checks for a planned change: its verb, its cluster and that cluster's project. */
export function guardPlan(
  deps: Pick<CommandDeps, "policy" | "audit" | "db" | "clock">,
  userId: string,
  plan: ChangePlan,
  about?: GuardAbout,
): Promise<Guard> {
  return guardChange(
    deps,
    userId,
    plan.verb,
    {
      clusterUid: plan.cluster.uid,
      projectUid: plan.cluster.projectUid || undefined,
      name: plan.cluster.name,
    },
    about,
  );
}
