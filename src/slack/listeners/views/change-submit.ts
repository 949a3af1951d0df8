import type { AllMiddlewareArgs, App, SlackViewMiddlewareArgs } from "@slack/bolt";
import { z } from "zod";
import { confirmChange, endUnreachedApproval } from "../../../changes/confirm.ts";
import type { ChangePlan } from "../../../model/change.ts";
import { CHANGE_VERB_NAMES, requiresTypedName } from "../../../model/change.ts";
import { ChangePlanStore } from "../../../store/change-plans.ts";
import { ChangeStore } from "../../../store/changes.ts";
import { approvalPlacedLine } from "../../../views/approval-request.ts";
import { CHANGE_CALLBACK_ID, CONFIRM_NAME_FIELD, planGoneModal } from "../../../views/change.ts";
import { postChangeCard, tellChangeError } from "../../change-outcome.ts";
import type { SlackEdge } from "../../types.ts";

/**
 * what a confirmation opened before plans were kept in the store carried (our own JSON, back
 * through Slack: checked, not trusted); such a modal may still be open across an upgrade
 */
const inlineMetadataSchema = z.object({
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

/** what a confirmation carries: its plan's id in the store (src/store/change-plans.ts) */
const metadataSchema = z.object({
  channel: z.string().min(1).max(40),
  planId: z.string().min(1).max(64),
});

type Carried =
  | { kind: "plan"; plan: ChangePlan; channel: string }
  | { kind: "gone"; channel: string }
  | { kind: "foreign" };

/** the plan a confirmation names, read back from the store (or carried inline, before) */
async function carriedPlan(
  privateMetadata: string | undefined,
  userId: string,
  plans: ChangePlanStore,
): Promise<Carried> {
  const json = safeJson(privateMetadata);
  const byId = metadataSchema.safeParse(json);
  if (byId.success) {
    const pending = await plans.get(byId.data.planId);
    // past its time, or kept for another person (not this person's to confirm)
    if (!pending || pending.requester !== userId) {
      return { kind: "gone", channel: byId.data.channel };
    }
    return { kind: "plan", plan: pending.plan, channel: pending.channel };
  }
  const inline = inlineMetadataSchema.safeParse(json);
  if (inline.success) {
    return {
      kind: "plan",
      plan: inline.data.plan as unknown as ChangePlan,
      channel: inline.data.channel,
    };
  }
  return { kind: "foreign" };
}

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
      const carried = await carriedPlan(
        view.private_metadata,
        body.user.id,
        new ChangePlanStore(deps.db, deps.clock),
      );
      if (carried.kind === "foreign") {
        // not a confirmation this bot opened: close it; nothing is changed
        await ack();
        edge.logger.warn({ viewId: view.id }, "change confirmation without its plan; ignored");
        return;
      }
      if (carried.kind === "gone") {
        // kept 12 h (or pruned): nothing is sent, and the person hears why
        await ack({ response_action: "update", view: planGoneModal() });
        return;
      }
      const { plan, channel } = carried;
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
        const board = edge.changeBoard;
        let outcome: Awaited<ReturnType<typeof confirmChange>>;
        try {
          outcome = await confirmChange({ requestKey: `slack:${view.id}`, plan, requester }, deps);
        } catch (error) {
          // the modal has closed: the person hears it here
          await tellChangeError(
            error,
            { channel, userId: requester.userId },
            { board, logger: edge.logger },
          );
          return;
        }
        switch (outcome.kind) {
          case "refused":
            await board.tell(channel, requester.userId, outcome.mrkdwn, outcome.text);
            return;
          case "duplicate":
            return;
          case "awaiting": {
            const target = deps.approvals?.channel ?? channel;
            const expiresAt = outcome.record.expiresAt ?? 0;
            const store = new ChangeStore(deps.db, deps.clock);
            let error: string | undefined;
            // the channel refusing it sends it to the requester's DM (the board does that); a
            // request that reaches nobody ends here rather than waiting unseen until it expires
            const where = await board
              .postApproval(target, {
                id: outcome.record.id,
                plan,
                requester: requester.userId,
                status: "awaiting_approval",
                expiresAt,
              })
              .catch((cause: unknown) => {
                error = slackError(cause);
                edge.logger.warn(
                  { changeId: outcome.record.id, err: error },
                  "approval request not posted",
                );
                return undefined;
              });
            if (where) await store.setRequestCard(outcome.record.id, where.channel, where.ts);
            else {
              await endUnreachedApproval(outcome.record, deps);
            }
            const placed = approvalPlacedLine({
              target,
              askedIn: channel,
              approvalsChannel: deps.approvals?.channel !== undefined,
              placed: !where ? "nowhere" : where.inDm ? "dm" : "channel",
              expiresAt,
              error,
            });
            if (placed) await board.tell(channel, requester.userId, placed.mrkdwn, placed.text);
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

/** Slack's error code (not_in_channel, ratelimited …) or the message; never a token */
function slackError(error: unknown): string {
  const code = (error as { data?: { error?: unknown } }).data?.error;
  if (typeof code === "string") return code;
  return error instanceof Error ? error.message : String(error);
}
