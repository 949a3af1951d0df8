import type { AllMiddlewareArgs, App, SlackViewMiddlewareArgs } from "@slack/bolt";
import { z } from "zod";
import { confirmChange } from "../../../changes/confirm.ts";
import type { ChangePlan } from "../../../model/change.ts";
import { CHANGE_VERB_NAMES, requiresTypedName } from "../../../model/change.ts";
import { ChangeStore } from "../../../store/changes.ts";
import { CHANGE_CALLBACK_ID, CONFIRM_NAME_FIELD } from "../../../views/change.ts";
import { postChangeCard } from "../../change-outcome.ts";
import type { SlackEdge } from "../../types.ts";

/** what the confirmation carried (our own JSON, back through Slack: checked, not trusted) */
const metadataSchema = z.object({
  channel: z.string().min(1).max(40),
  plan: z
    .object({
      verb: z.enum(CHANGE_VERB_NAMES),
      cluster: z.object({
        uid: z.string().min(1).max(64),
        name: z.string().max(256),
        projectUid: z.string().max(64),
        cloudType: z.string().max(64),
        state: z.string().max(64),
      }),
    })
    .passthrough(),
});

/**
 * The confirmation's submit. A typed name that does not match stays in the modal; anything else
 * closes it at once (Slack allows 3 s) and the change goes on: refusals come back as a line only
 * the person sees, the change's card (or the approval request) in the channel.
 */
export function registerChangeSubmit(app: App, edge: SlackEdge): void {
  const deps = edge.commandDeps;
  app.view(
    CHANGE_CALLBACK_ID,
    async ({ ack, body, view }: SlackViewMiddlewareArgs & AllMiddlewareArgs) => {
      const parsed = metadataSchema.safeParse(safeJson(view.private_metadata));
      if (!parsed.success) {
        // not a confirmation this bot opened: close it; nothing is changed
        await ack();
        edge.logger.warn({ viewId: view.id }, "change confirmation without its plan; ignored");
        return;
      }
      const plan = parsed.data.plan as unknown as ChangePlan;
      const channel = parsed.data.channel;
      if (requiresTypedName(plan.verb)) {
        const typed = view.state.values[CONFIRM_NAME_FIELD]?.[CONFIRM_NAME_FIELD]?.value ?? "";
        if (typed.trim() !== plan.cluster.name) {
          await ack({
            response_action: "errors",
            errors: { [CONFIRM_NAME_FIELD]: `Type ${plan.cluster.name} exactly to confirm.` },
          });
          return;
        }
      }
      await ack();
      const requester = { userId: body.user.id, channelId: channel, teamId: body.team?.id };
      const work = async () => {
        const outcome = await confirmChange(
          { requestKey: `slack:${view.id}`, plan, requester },
          deps,
        );
        const board = edge.changeBoard;
        switch (outcome.kind) {
          case "refused":
            await board.tell(channel, requester.userId, outcome.mrkdwn, outcome.text);
            return;
          case "duplicate":
            return;
          case "awaiting": {
            const target = deps.approvals?.channel ?? channel;
            const where = await board.postApproval(target, {
              id: outcome.record.id,
              plan,
              requester: requester.userId,
              status: "awaiting_approval",
              expiresAt: outcome.record.expiresAt ?? 0,
            });
            if (where) {
              await new ChangeStore(deps.db, deps.clock).setRequestCard(
                outcome.record.id,
                where.channel,
                where.ts,
              );
            }
            if (target !== channel) {
              await board.tell(
                channel,
                requester.userId,
                `:busts_in_silhouette: Asked for approval in <#${target}>; the change runs when someone else approves it.`,
                "Asked for approval.",
              );
            }
            return;
          }
          default:
            await postChangeCard(outcome, {
              board,
              db: deps.db,
              clock: deps.clock,
              logger: edge.logger,
            });
        }
      };
      await edge.changeWork(work);
    },
  );
}

function safeJson(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? "");
  } catch {
    return undefined;
  }
}
