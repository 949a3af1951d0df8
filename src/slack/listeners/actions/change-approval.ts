import type { App } from "@slack/bolt";
import { z } from "zod";
import { showRequestCard } from "../../../changes/card-delivery.ts";
import { decideChange } from "../../../changes/decide.ts";
import type { ChangeRecord } from "../../../store/changes.ts";
import { APPROVE_ACTION_ID, REJECT_ACTION_ID } from "../../../views/change.ts";
import { postChangeCard, tellChangeError } from "../../change-outcome.ts";
import type { SlackEdge } from "../../types.ts";

const approvalClick = z.object({
  user: z.object({ id: z.string().min(1) }),
  channel: z.object({ id: z.string().min(1) }).optional(),
  container: z
    .object({ channel_id: z.string().min(1) })
    .partial()
    .optional(),
  actions: z.array(z.object({ value: z.string().regex(/^\d{1,12}$/) })).min(1),
});

/**
 * Approve / Reject on a change's request card. Acked at once; the decision is the use case's
 * (src/changes/decide.ts), which lets exactly one decision land however many clicks arrive on
 * however many replicas. The card is edited to the outcome; refusals are private to the clicker.
 */
export function registerChangeApprovalActions(app: App, edge: SlackEdge): void {
  for (const [actionId, decision] of [
    [APPROVE_ACTION_ID, "approve"],
    [REJECT_ACTION_ID, "reject"],
  ] as const) {
    app.action(actionId, async ({ ack, body }) => {
      await ack();
      const parsed = approvalClick.safeParse(body);
      const channel = parsed.success
        ? (parsed.data.channel?.id ?? parsed.data.container?.channel_id)
        : undefined;
      if (!parsed.success || !channel) {
        edge.logger.warn({ actionId }, "approval click without a request; ignored");
        return;
      }
      const userId = parsed.data.user.id;
      const id = Number(parsed.data.actions[0]!.value);
      await edge.changeWork(async () => {
        const deps = edge.commandDeps;
        const board = edge.changeBoard;
        let decided: Awaited<ReturnType<typeof decideChange>>;
        try {
          decided = await decideChange(id, { userId, channelId: channel }, decision, deps);
        } catch (error) {
          await tellChangeError(error, { channel, userId }, { board, logger: edge.logger });
          return;
        }
        // the request card's edit is kept on the change's row until Slack takes it (a 429 or a
        // 5xx is retried by the follower), so it never stands between the click and the card
        const cards = { db: deps.db, clock: deps.clock, board, logger: edge.logger };
        const showRequest = (record: ChangeRecord, line?: string) =>
          showRequestCard(record, cards, line);
        switch (decided.kind) {
          case "refused":
            await board.tell(channel, userId, decided.mrkdwn, decided.text);
            return;
          case "settled":
            await showRequest(decided.record);
            // the other requests this click found expired lose their buttons too
            for (const expired of decided.expired ?? []) {
              await showRequest(expired).catch((error: unknown) =>
                edge.logger.warn(
                  {
                    changeId: expired.id,
                    err: error instanceof Error ? error.message : String(error),
                  },
                  "expired request card not updated",
                ),
              );
            }
            await board.tell(
              channel,
              userId,
              `This request is already ${decided.record.status.replace("_", " ")}${decided.record.approver ? ` (by <@${decided.record.approver}>)` : ""}.`,
              "Already decided.",
            );
            return;
          case "rejected":
            await showRequest(decided.record);
            return;
          case "stale":
            await showRequest(decided.record, decided.record.reason);
            await board.tell(channel, userId, decided.mrkdwn, decided.text);
            // the requester hears it too: their change ended here, not sent
            if (decided.record.requester !== userId) {
              await board.tell(
                decided.record.channel,
                decided.record.requester,
                decided.requester.mrkdwn,
                decided.requester.text,
              );
            }
            return;
          case "taken over":
            // the lease holder took the claim over; it edits the request card and posts the card
            return;
          default:
            await showRequest(
              decided.record,
              decided.kind === "failed" ? decided.reason : undefined,
            );
            await postChangeCard(decided, {
              board,
              db: deps.db,
              clock: deps.clock,
              logger: edge.logger,
            });
        }
      });
    });
  }
}
