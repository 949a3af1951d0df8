import type { ApprovalCardInput, ChangeCardInput } from "../views/change.ts";

/** Where a change's cards live: the Slack edge posts and edits them (tests record them). */
export interface ChangeBoard {
  /**
   * A change card, fresh. With `key`, posted once (src/notify/delivery/post-once.ts): an
   * earlier attempt under that key that Slack took (its answer lost) is found and its ts given
   * back, not posted again.
   */
  post(
    channel: string,
    card: ChangeCardInput,
    key?: string,
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
  /**
   * What a refusal of one of these calls means for trying again: `retryAfterMs` when the board
   * said when (Slack's Retry-After), `lasting` when trying the same again cannot help (the
   * channel is gone, the bot is not in it, the message was deleted). Absent: any refusal passes.
   */
  refusal?(error: unknown): BoardRefusal;
}

export interface BoardRefusal {
  retryAfterMs?: number;
  lasting: boolean;
  /**
   * not a refusal at all: an earlier try of this card may still land (post once), so this one
   * waits `retryAfterMs` and is not counted as a failed try (which would end in the DM: a
   * second card while the first is on its way)
   */
  deferral?: boolean;
  /** the board's name for it, for the log (`ratelimited`, `channel_not_found` …) */
  code: string;
}
