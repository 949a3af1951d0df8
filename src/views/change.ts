import type { Button, KnownBlock, ModalView } from "@slack/types";
import { type ChangePlan, type ChangeStatus, requiresTypedName } from "../model/change.ts";
import { quoteArg } from "../model/command-text.ts";
import type { Freeze } from "../model/freeze.ts";
import { buttonRows, commandButton, context, header, section } from "./blocks.ts";
import { clampText, LIMITS } from "./limits.ts";
import { bold, code, escapeMrkdwn, mention, slackDate } from "./mrkdwn.ts";
import { scopeArg } from "./scope.ts";

/**
 * Day-2 changes as Slack shows them: the confirmation modal, the card that follows a change to
 * its end, the request a second person approves, and freeze refusals. Pure; every name from
 * Palette or a person is escaped here.
 */

export const CHANGE_CALLBACK_ID = "palette_change_confirm";
export const CONFIRM_NAME_FIELD = "confirm_name";
export const APPROVE_ACTION_ID = "change_approve";
export const REJECT_ACTION_ID = "change_reject";

const plain = (text: string) => ({ type: "plain_text" as const, text: text.slice(0, 150) });

/** "scale `worker` of *web-prod* 3 → 5" */
export function changeSummary(plan: ChangePlan): string {
  const cluster = bold(plan.cluster.name);
  switch (plan.verb) {
    case "scale":
      return `scale ${code(plan.pool)} of ${cluster} ${plan.from} → ${plan.to}`;
    case "cordon":
    case "uncordon":
      return `${plan.verb} ${code(plan.machine.name)} of ${cluster}`;
    case "repave":
      return `approve the pending repave of ${cluster}`;
    case "renew":
      return `renew the Kubernetes certificates of ${cluster}`;
    case "backup":
      return `back up ${cluster} now`;
    case "logs":
      return `fetch the logs of ${cluster}`;
    case "upgrade":
      return `upgrade ${cluster}: ${code(plan.profile.name)} ${escapeMrkdwn(plan.profile.fromVersion)} → ${escapeMrkdwn(plan.profile.toVersion)}`;
    default:
      return `${plan.verb} ${cluster}`;
  }
}

/** what the change does, in the words a reviewer reads */
function effectLine(plan: ChangePlan): string[] {
  switch (plan.verb) {
    case "scale":
      return [
        `*Pool* ${code(plan.pool)}: ${plan.from} → *${plan.to}* nodes`,
        ...(plan.autoscale
          ? [`Autoscaling between ${plan.autoscale.min} and ${plan.autoscale.max} nodes`]
          : []),
      ];
    case "delete":
      return [
        "*Deletes the cluster* and the cloud resources Palette made for it. Not forced: Palette cleans up first.",
      ];
    case "cordon":
      return [
        `*Machine* ${code(plan.machine.name)} (pool ${code(plan.pool)}): no new pods are scheduled on it; those running stay until drained.`,
      ];
    case "uncordon":
      return [`*Machine* ${code(plan.machine.name)} (pool ${code(plan.pool)}): schedulable again.`];
    case "repave":
      return [
        "*Lets Palette replace the nodes* one by one for the pack changes it holds:",
        ...(plan.reasons.length > 0
          ? plan.reasons.slice(0, 10).map((reason) => `• ${escapeMrkdwn(reason)}`)
          : ["• (Palette gave no reason)"]),
      ];
    case "renew": {
      const days = Math.ceil((plan.expiresAt - plan.readAt) / 86_400_000);
      return [
        `*Renews the control plane's Kubernetes certificates*: ${plan.count} expire ${new Date(plan.expiresAt).toISOString().slice(0, 10)}${days > 0 ? ` (in ${days} day${days === 1 ? "" : "s"})` : " (expired)"}.`,
        "Palette rotates them on each control-plane node; the new ones last a year.",
      ];
    }
    case "pause":
      return ["*Pauses the virtual cluster*: its workloads stop until it is resumed."];
    case "resume":
      return ["*Resumes the virtual cluster*: its workloads start again."];
    case "upgrade":
      return [
        `*Profile* ${code(plan.profile.name)}: ${escapeMrkdwn(plan.profile.fromVersion)} → *${escapeMrkdwn(plan.profile.toVersion)}*`,
        ...(plan.packs.length > 0
          ? [
              "*Packs that change*",
              ...plan.packs
                .slice(0, 15)
                .map(
                  (pack) =>
                    `• ${code(pack.name)} ${pack.from ? escapeMrkdwn(pack.from) : "(new)"} → ${pack.to ? escapeMrkdwn(pack.to) : "(removed)"}`,
                ),
            ]
          : ["No pack changes its version (values or manifests may)."]),
      ];
    case "logs":
      return [
        `*Palette collects its logs* (the last ${plan.lines} lines of each, from the nodes and the Kubernetes system namespaces); the file comes to your DMs only.`,
      ];
    case "backup":
      return [
        `*Backs it up now* to ${bold(plan.location.name) || code(plan.location.uid)} as ${code(plan.backupName)}, kept ${plan.ttlHours} h`,
        `${plan.namespaces.length > 0 ? `Namespaces ${plan.namespaces.map(code).join(", ")}` : "Every namespace"}${plan.includeClusterResources ? ", cluster resources" : ""}${plan.includeAllDisks ? ", all disks" : ""} (the cluster's backup policy)`,
      ];
  }
}

function planLines(plan: ChangePlan): string[] {
  return [
    `*Cluster* ${bold(plan.cluster.name)} · ${escapeMrkdwn(plan.cluster.cloudType)}`,
    ...effectLine(plan),
    `*Palette now* ${escapeMrkdwn(plan.cluster.state)}`,
  ];
}

export interface ChangeModalInput {
  plan: ChangePlan;
  /** the channel the change was asked in; its card goes there */
  channel: string;
  /**
   * the plan's id in the store (src/store/change-plans.ts): the modal carries the id, not the
   * plan, which can pass Slack's 3,000-character private_metadata (many packs, many reasons)
   */
  planId: string;
  /** APPROVAL_REQUIRED names this verb */
  needsApproval: boolean;
}

/** What the confirmation says about the change, in the modal and at the console's prompt. */
export function changeConfirmBlocks(plan: ChangePlan): KnownBlock[] {
  return [section(`You are about to ${changeSummary(plan)}.`), section(planLines(plan).join("\n"))];
}

export function changeModal(input: ChangeModalInput): ModalView {
  const { plan } = input;
  const verb = VERB_LABEL[plan.verb];
  const blocks: KnownBlock[] = changeConfirmBlocks(plan);
  if (requiresTypedName(plan.verb)) {
    blocks.push({
      type: "input",
      block_id: CONFIRM_NAME_FIELD,
      label: plain("Type the cluster's name to confirm"),
      element: {
        type: "plain_text_input",
        action_id: CONFIRM_NAME_FIELD,
        placeholder: plain(plan.cluster.name),
        max_length: 256,
      },
    });
  }
  if (input.needsApproval) {
    blocks.push(
      context(
        ":busts_in_silhouette: A second person allowed to do this must approve it before it runs (APPROVAL_REQUIRED).",
      ),
    );
  }
  blocks.push(
    context(
      "If Palette changes before you confirm, I check again and stop if it no longer matches.",
    ),
  );
  return {
    type: "modal",
    callback_id: CHANGE_CALLBACK_ID,
    title: plain(modalTitle(verb)),
    submit: plain(clampText(input.needsApproval ? "Request approval" : verb, LIMITS.modalTitle)),
    close: plain("Cancel"),
    private_metadata: JSON.stringify({ planId: input.planId, channel: input.channel }),
    blocks,
  };
}

/**
 * "Scale cluster", but never past Slack's 24 characters for a modal's title: views.open refuses
 * the whole view (invalid_arguments) for one more, as it did "Renew certificates cluster".
 */
export function modalTitle(label: string): string {
  const long = `${label} cluster`;
  return long.length <= LIMITS.modalTitle ? long : clampText(label, LIMITS.modalTitle);
}

/**
 * What a confirmation's submit shows when its plan is no longer kept (open past the store's
 * time, src/store/change-plans.ts): nothing was sent.
 */
export function planGoneModal(): ModalView {
  return {
    type: "modal",
    title: plain("Not sent"),
    close: plain("Close"),
    blocks: [
      section(
        ":hourglass: This confirmation was open too long and its plan is no longer kept. *Nothing was sent.* Ask again to see Palette's state now.",
      ),
    ],
  };
}

export interface ChangeCardInput {
  plan: ChangePlan;
  status: ChangeStatus;
  requester: string;
  approver?: string;
  /** the latest progress line, or Palette's refusal */
  line?: string;
  /** "4 m 12 s" once it ended */
  took?: string;
  /** the Palette user it ran as (IDENTITY=linked) */
  paletteUser?: string;
}

const VERB_LABEL: Record<ChangePlan["verb"], string> = {
  scale: "Scale",
  delete: "Delete",
  cordon: "Cordon",
  uncordon: "Uncordon",
  repave: "Approve repave",
  renew: "Renew certificates",
  pause: "Pause",
  resume: "Resume",
  backup: "Back up",
  logs: "Fetch logs",
  upgrade: "Upgrade",
};
const DOING: Record<ChangePlan["verb"], string> = {
  scale: "Scaling",
  delete: "Deleting",
  cordon: "Cordoning",
  uncordon: "Uncordoning",
  repave: "Approving the repave of",
  renew: "Renewing the certificates of",
  pause: "Pausing",
  resume: "Resuming",
  backup: "Backing up",
  logs: "Fetching the logs of",
  upgrade: "Upgrading",
};
const DONE: Record<ChangePlan["verb"], string> = {
  scale: "Scaled",
  delete: "Deleted",
  cordon: "Cordoned",
  uncordon: "Uncordoned",
  repave: "Approved the repave of",
  renew: "Renewed the certificates of",
  pause: "Paused",
  resume: "Resumed",
  backup: "Backed up",
  logs: "Sent the logs of",
  upgrade: "Upgraded",
};

function target(plan: ChangePlan): string {
  switch (plan.verb) {
    case "scale":
      return `${code(plan.pool)} of ${bold(plan.cluster.name)} ${plan.from} → ${plan.to}`;
    case "cordon":
    case "uncordon":
      return `${code(plan.machine.name)} of ${bold(plan.cluster.name)}`;
    case "upgrade":
      return `${bold(plan.cluster.name)} (${code(plan.profile.name)} ${escapeMrkdwn(plan.profile.fromVersion)} → ${escapeMrkdwn(plan.profile.toVersion)})`;
    default:
      return bold(plan.cluster.name);
  }
}

function plainTarget(plan: ChangePlan): string {
  switch (plan.verb) {
    case "scale":
      return `${plan.pool} of ${plan.cluster.name}`;
    case "cordon":
    case "uncordon":
      return `${plan.machine.name} of ${plan.cluster.name}`;
    default:
      return plan.cluster.name;
  }
}

/** The change's card in the channel, edited in place as it goes. */
export function changeCardBlocks(input: ChangeCardInput): KnownBlock[] {
  const { plan } = input;
  const line = input.line ? escapeMrkdwn(input.line) : undefined;
  let text: string;
  switch (input.status) {
    case "done":
      text = `:white_check_mark: ${DONE[plan.verb]} ${target(plan)}${line ? ` · ${line}` : ""}${input.took ? `, ${input.took}` : ""}`;
      break;
    case "failed":
      text = `:x: ${DOING[plan.verb]} ${target(plan)} failed${line ? `: ${line}` : ""}`;
      break;
    case "unconfirmed":
      // sent, but Palette's answer never came: it may have happened; the follower reads Palette
      text = `:grey_question: ${DOING[plan.verb]} ${target(plan)}: unconfirmed${line ? `. ${line}` : ""}`;
      break;
    default:
      text = `:hourglass_flowing_sand: ${DOING[plan.verb]} ${target(plan)} …${line ? ` ${line}` : ""}`;
  }
  const who = [`Requested by ${mention(input.requester)}`];
  if (input.approver) who.push(`approved by ${mention(input.approver)}`);
  if (input.paletteUser) who.push(`as ${escapeMrkdwn(input.paletteUser)}`);
  return [section(text), context(who.join(", "))];
}

export function changeCardText(input: ChangeCardInput): string {
  const { plan } = input;
  // the fallback is parsed as mrkdwn too (notifications, clients without blocks)
  const what = escapeMrkdwn(plainTarget(plan));
  if (input.status === "done") return `${DONE[plan.verb]} ${what}`;
  if (input.status === "failed") return `${DOING[plan.verb]} ${what} failed`;
  if (input.status === "unconfirmed") return `${DOING[plan.verb]} ${what}: unconfirmed`;
  return `${DOING[plan.verb]} ${what}`;
}

export interface ApprovalCardInput {
  id: number;
  plan: ChangePlan;
  requester: string;
  status: ChangeStatus;
  expiresAt: number;
  approver?: string;
  /** why it did not run (stale, Palette refused, …) */
  line?: string;
}

/** The request a second person approves; the buttons go once it is decided or expired. */
export function approvalCardBlocks(input: ApprovalCardInput): KnownBlock[] {
  const blocks: KnownBlock[] = [
    header("Change needs approval"),
    section(`${mention(input.requester)} asks to ${changeSummary(input.plan)}.`),
    section(planLines(input.plan).join("\n")),
  ];
  if (input.status === "awaiting_approval") {
    const value = String(input.id);
    const approve: Button = {
      type: "button",
      action_id: APPROVE_ACTION_ID,
      text: plain("Approve"),
      style: "primary",
      value,
      confirm: {
        title: plain("Approve this change?"),
        text: plain(`It runs at once in Palette.`),
        confirm: plain("Approve"),
        deny: plain("Back"),
      },
    };
    const reject: Button = {
      type: "button",
      action_id: REJECT_ACTION_ID,
      text: plain("Reject"),
      style: "danger",
      value,
    };
    blocks.push({ type: "actions", block_id: `change_${value}`, elements: [approve, reject] });
    blocks.push(
      context(
        `Another person allowed to do this approves; the requester cannot. Expires ${slackDate(input.expiresAt, "dateTime")}.`,
      ),
    );
    return blocks;
  }
  const by = input.approver ? ` by ${mention(input.approver)}` : "";
  const outcome: Partial<Record<ChangeStatus, string>> = {
    rejected: `:no_entry_sign: Rejected${by}.`,
    expired: ":hourglass: Expired: nobody approved it in time. Ask again if it is still needed.",
    failed: `:x: Approved${by}, but it did not run${input.line ? `: ${escapeMrkdwn(input.line)}` : "."}`,
  };
  blocks.push(
    context(outcome[input.status] ?? `:white_check_mark: Approved${by}; its card follows it.`),
  );
  return blocks;
}

export function approvalCardText(input: ApprovalCardInput): string {
  return `Change needs approval: ${input.plan.verb} ${escapeMrkdwn(input.plan.cluster.name)}`;
}

export function freezeScopeLabel(freeze: Freeze): string {
  switch (freeze.scope.kind) {
    case "all":
      return "every cluster";
    case "project":
      return `project ${code(freeze.scope.uid)}`;
    case "cluster":
      return bold(freeze.scope.name) || code(freeze.scope.uid);
  }
}

/** What a refused change says: who froze what, why and until when. */
/**
 * A freeze's refusal three ways: `mrkdwn` for the message, `text` its fallback (shown in
 * notifications, where Slack renders mrkdwn too, so escaped), and `reason` in plain words for
 * what escapes it itself (a change card's line, a form's field error).
 */
export function freezeRefusal(freeze: Freeze): { mrkdwn: string; text: string; reason: string } {
  const quoted = freeze.reason ? `: “${escapeMrkdwn(freeze.reason)}”` : "";
  const reason = `Changes are frozen until ${new Date(freeze.untilMs).toISOString()}${freeze.reason ? `: ${freeze.reason}` : ""}`;
  return {
    mrkdwn: `:snowflake: Changes to ${freezeScopeLabel(freeze)} are frozen by ${mention(freeze.frozenBy)} until ${slackDate(freeze.untilMs, "dateTime")}${quoted}. Reads and notifications go on; ask them, or wait until it ends.`,
    text: escapeMrkdwn(reason),
    reason,
  };
}

export function freezeLines(freezes: readonly Freeze[]): string {
  if (freezes.length === 0) return "No freezes: changes are allowed (by the `ALLOW_*` lists).";
  return freezes
    .map(
      (freeze) =>
        `:snowflake: ${freezeScopeLabel(freeze)} until ${slackDate(freeze.untilMs, "dateTime")}, by ${mention(freeze.frozenBy)}${freeze.reason ? `: “${escapeMrkdwn(freeze.reason)}”` : ""}`,
    )
    .join("\n");
}

export interface ChangeChoiceData {
  /** mrkdwn, escaped by whoever built it */
  prompt: string;
  choices: ReadonlyArray<{ label: string; command: string }>;
  hint?: string;
}

/** "Which pool?" / "Which node?": one button per choice, each a full change command. */
export function changeChoiceBlocks(data: ChangeChoiceData): KnownBlock[] {
  const blocks: KnownBlock[] = [section(data.prompt)];
  blocks.push(
    ...buttonRows(
      data.choices.map((choice, index) =>
        commandButton(choice.label, choice.command, `choice_${index}`),
      ),
    ),
  );
  if (data.hint) blocks.push(context(data.hint));
  return blocks;
}

/** The command that asks for this change again (what a "Review and confirm…" button replays). */
export function changeCommandText(plan: ChangePlan): string {
  const target = `${quoteArg(plan.cluster.uid)}${scopeArg(plan.cluster.projectUid || undefined)}`;
  switch (plan.verb) {
    case "scale":
      return `scale ${target} ${quoteArg(plan.pool)} ${plan.to}`;
    case "cordon":
    case "uncordon":
      return `${plan.verb} ${target} ${quoteArg(plan.machine.uid)}`;
    case "repave":
      return `repave approve ${target}`;
    case "renew":
      return `renew certificates ${target}`;
    case "upgrade":
      return `upgrade ${target} ${quoteArg(plan.profile.fromUid)} ${quoteArg(plan.profile.toVersion)}`;
    default:
      return `${plan.verb} ${target}`;
  }
}

/**
 * When the confirmation cannot open where it was asked (a mention or DM brings no trigger_id;
 * Slack's expires after 3 s): the change said in a line, and a button whose click opens it.
 */
export function reviewChangeData(plan: ChangePlan, why: string): ChangeChoiceData {
  return {
    prompt: `${why} To ${changeSummary(plan)}, review it first:`,
    choices: [{ label: "Review and confirm…", command: changeCommandText(plan) }],
  };
}
