import type { ApprovalCardInput, ChangeCardInput } from "../views/change.ts";

/** Where a change's cards live: the Slack edge posts and edits them (tests record them). */
export interface ChangeBoard {
  post(
    channel: string,
    card: ChangeCardInput,
  ): Promise<{ channel: string; ts: string } | undefined>;
  update(channel: string, ts: string, card: ChangeCardInput): Promise<void>;
  postApproval(
    channel: string,
    card: ApprovalCardInput,
  ): Promise<{ channel: string; ts: string } | undefined>;
  updateApproval(channel: string, ts: string, card: ApprovalCardInput): Promise<void>;
  /** a line only this person sees, where they asked */
  tell(channel: string, userId: string, mrkdwn: string, text: string): Promise<void>;
  /** a file into this person's DM with the bot and nowhere else (fetched logs) */
  sendFile(userId: string, fileName: string, content: Buffer): Promise<void>;
}
