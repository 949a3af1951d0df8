import { CHANGE_PERMISSION, type ChangePlan } from "../model/change.ts";
import type { PlanDifference } from "../model/plan-drift.ts";
import { changeSummary } from "./change.ts";
import { escapeMrkdwn, mention } from "./mrkdwn.ts";

/**
 * What a change that was not sent says because Palette or the requester's permission no longer
 * matches what was confirmed or approved: to the person who clicked, to the requester, and on
 * the request card (`reason`, plain: the card escapes it). Pure; every name is escaped here.
 */
export interface ChangeRefusal {
  mrkdwn: string;
  text: string;
  /** plain, stored on the change and shown on its request card */
  reason: string;
  /** plain, the reason as the requester reads it (when it is about them) */
  forRequester?: string;
}

/** one difference in words: "The size of pool worker-pool: now 4 nodes (it was 3 nodes)." */
export function differenceLine(difference: PlanDifference): string {
  const what = difference.what.charAt(0).toUpperCase() + difference.what.slice(1);
  return `${what}: now ${difference.now} (it was ${difference.was}).`;
}

/**
 * Palette no longer matches: `lines` are the differences, or Palette's own answer when the
 * change no longer applies at all (no repave waiting, a pool gone).
 */
export function driftRefusal(
  lines: readonly string[],
  since: "the confirmation opened" | "it was asked",
): ChangeRefusal {
  const head = `Not sent: the cluster changed since ${since}.`;
  return {
    mrkdwn: `:warning: ${head}\n${lines.map((line) => `• ${escapeMrkdwn(line)}`).join("\n")}\nAsk again to see Palette's state now.`,
    text: escapeMrkdwn(`${head} ${lines.join(" ")}`),
    reason: `the cluster changed since it was asked. ${lines.join(" ")}`,
  };
}

/** the approval checks the requester again: ALLOW_* may have dropped them since they asked */
export function requesterNotAllowed(plan: ChangePlan, requester: string): ChangeRefusal {
  const variable = `ALLOW_${CHANGE_PERMISSION[plan.verb].toUpperCase()}`;
  return {
    mrkdwn: `:no_entry: Not sent: ${mention(requester)}, who asked, is no longer allowed to ${plan.verb} clusters (\`${variable}\`).`,
    text: `Not sent: the requester is no longer allowed to ${plan.verb} clusters.`,
    reason: `the requester is no longer allowed to ${plan.verb} clusters (${variable})`,
    forRequester: `you are no longer allowed to ${plan.verb} clusters (${variable})`,
  };
}

/** what the requester is told when their approved request did not run, and why */
export function requesterTold(
  plan: ChangePlan,
  approver: string,
  refusal: Pick<ChangeRefusal, "reason" | "forRequester">,
): { mrkdwn: string; text: string } {
  const why = refusal.forRequester ?? refusal.reason;
  return {
    mrkdwn: `:x: Your request to ${changeSummary(plan)} was approved by ${mention(approver)} but not sent: ${escapeMrkdwn(why)}`,
    text: escapeMrkdwn(
      `Your request to ${plan.verb} ${plan.cluster.name} was approved but not sent: ${why}`,
    ),
  };
}
