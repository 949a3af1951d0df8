import type { ChangeRecord } from "../store/changes.ts";
import type { ApprovalCardInput, ChangeCardInput } from "../views/change.ts";

/** Where a change's cards live: the Slack edge posts and edits them (tests record them). */
export interface ChangeBoard {
  post(
    channel: string,
    card: ChangeCardInput,
  ): Promise<{ channel: string; ts: string } | undefined>;
  update(channel: string, ts: string, card: ChangeCardInput): Promise<void>;
  /**
   * the request a second person approves; when the channel refuses it (the bot is not in it, or
   * it is gone) it goes to the requester's DM with the bot instead, and `inDm` says so
   */
  postApproval(
    channel: string,
    card: ApprovalCardInput,
  ): Promise<{ channel: string; ts: string; inDm?: boolean } | undefined>;
  updateApproval(channel: string, ts: string, card: ApprovalCardInput): Promise<void>;
  /** a line only this person sees, where they asked */
  tell(channel: string, userId: string, mrkdwn: string, text: string): Promise<void>;
  /** a file into this person's DM with the bot and nowhere else (fetched logs) */
  sendFile(userId: string, fileName: string, content: Buffer): Promise<void>;
}

/**
 * Edits a change's approval request to what the record says now (decided, expired, failed);
 * nothing when the request was never posted.
 */
export async function showApprovalRequest(
  board: ChangeBoard,
  record: ChangeRecord,
  line?: string,
): Promise<void> {
  if (!record.requestChannel || !record.requestTs) return;
  await board.updateApproval(record.requestChannel, record.requestTs, {
    id: record.id,
    plan: record.plan,
    requester: record.requester,
    status: record.status,
    expiresAt: record.expiresAt ?? 0,
    approver: record.approver,
    line,
  });
}
