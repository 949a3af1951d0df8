import { escapeMrkdwn, slackDate } from "./mrkdwn.ts";

/**
 * What the requester is told about where their approval request went: the approvals channel,
 * their own DM (the channel refused it), or nowhere. Undefined when it sits where they asked
 * and they can see it. Pure.
 */
export function approvalPlacedLine(input: {
  /** where it was meant to go: APPROVALS_CHANNEL, or the channel the change was asked in */
  target: string;
  /** the channel the change was asked in */
  askedIn: string;
  /** APPROVALS_CHANNEL names the target */
  approvalsChannel: boolean;
  placed: "channel" | "dm" | "nowhere";
  expiresAt: number;
  /** Slack's refusal, when it was placed nowhere */
  error?: string;
}): { mrkdwn: string; text: string } | undefined {
  const channel = `<#${escapeMrkdwn(input.target)}>`;
  const fix = input.approvalsChannel
    ? "ask an admin to invite me to it or to set `APPROVALS_CHANNEL` to a channel I am in"
    : `invite me to ${channel} (\`/invite\`)`;
  switch (input.placed) {
    case "channel":
      if (input.target === input.askedIn) return undefined;
      return {
        mrkdwn: `:busts_in_silhouette: Asked for approval in ${channel}; the change runs when someone else approves it.`,
        text: "Asked for approval.",
      };
    case "dm":
      return {
        mrkdwn: `:warning: I could not post your approval request in ${channel} (I am not in it, or it is gone), so it is in your DM with me. Nobody else can approve it there: ${fix}, then ask again. This request expires ${slackDate(input.expiresAt, "dateTime")}.`,
        text: "Your approval request could not be posted in the channel; it is in your DM with me.",
      };
    case "nowhere":
      return {
        mrkdwn: `:x: I could not post your approval request in ${channel} nor in your DM${input.error ? ` (Slack said ${escapeMrkdwn(input.error)})` : ""}, so nobody can approve it: it was not sent and will not run. Ask again later.`,
        text: "Your approval request could not be posted; the change will not run.",
      };
  }
}
