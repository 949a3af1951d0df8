import type { ChangeBoard } from "../changes/board.ts";
import { confirmChange } from "../changes/confirm.ts";
import { requiresTypedName } from "../model/change.ts";
import { quoteArg } from "../model/command-text.ts";
import { describeForUser } from "../palette/errors.ts";
import { dispatch } from "../registry/dispatch.ts";
import { ChangeStore } from "../store/changes.ts";
import type { CommandDeps, ModalReply, Requester } from "../verb-kit/types.ts";
import { approvalCardBlocks, changeCardBlocks, changeConfirmBlocks } from "../views/change.ts";
import { errorBlocks } from "../views/message.ts";
import { replyBlocks } from "../views/reply.ts";
import { scopeArg } from "../views/scope.ts";
import { renderBlocks } from "./render.ts";

/**
 * A change's confirmation at the console: the same lines the Slack modal shows, then a question
 * (the cluster's name for delete and pause, yes otherwise). What follows is the same use case as
 * the modal's submit; the cards print as they are posted and edited.
 */

export interface ChangePromptsOptions {
  reply: Extract<ModalReply, { modal: "change" }>;
  ask: (question: string) => Promise<string>;
  print: (text: string) => void;
  deps: CommandDeps;
  requester: Requester;
  /** a fresh key per confirmation (the modal's view id in Slack) */
  requestKey: string;
}

export async function runChangePrompts(options: ChangePromptsOptions): Promise<void> {
  const { reply, print, deps, requester } = options;
  const { plan } = reply;
  print(renderBlocks(changeConfirmBlocks(plan)));
  if (reply.needsApproval)
    print("A second person must approve it before it runs (APPROVAL_REQUIRED).");
  const typed = requiresTypedName(plan.verb);
  const answer = (
    await options.ask(typed ? `Type ${plan.cluster.name} to confirm:` : "Confirm? (yes/no)")
  ).trim();
  const confirmed = typed ? answer === plan.cluster.name : /^y(es)?$/i.test(answer);
  if (!confirmed) {
    print(typed ? "Not the cluster's name: nothing changed." : "Cancelled: nothing changed.");
    return;
  }
  try {
    const outcome = await confirmChange({ requestKey: options.requestKey, plan, requester }, deps);
    switch (outcome.kind) {
      case "refused":
        print(renderBlocks(errorBlocks(outcome.mrkdwn)));
        return;
      case "duplicate":
        return;
      case "awaiting":
        print(
          renderBlocks(
            approvalCardBlocks({
              id: outcome.record.id,
              plan,
              requester: requester.userId,
              status: "awaiting_approval",
              expiresAt: outcome.record.expiresAt ?? 0,
            }),
          ),
        );
        print("(in Slack this request goes to the channel, where another person approves it)");
        return;
      case "taken over":
        // its heartbeat had stopped, so the follower took it over: it prints the change's end
        print("This change was taken over by the follower, which reads Palette for its end.");
        return;
      default:
        // the console's "card": the follower prints it again as the change goes on
        {
          const store = new ChangeStore(deps.db, deps.clock);
          await store.setCard(
            outcome.record.id,
            requester.channelId,
            `console-${outcome.record.id}`,
          );
          // printed below, so the card the move owes is shown (src/changes/card-delivery.ts)
          const owed = (await store.get(outcome.record.id))?.cardOwed;
          if (owed) await store.owedShown("card", outcome.record.id, owed.raw);
        }
        print(
          renderBlocks(
            changeCardBlocks({
              plan,
              status: outcome.kind,
              requester: requester.userId,
              line: outcome.kind === "accepted" ? "Palette accepted it" : outcome.reason,
              paletteUser: outcome.paletteUser,
            }),
          ),
        );
        await printStory(options);
    }
  } catch (error) {
    // not "failed": it may have reached Palette before the error; the follower reads its end
    print(
      `The bot hit an error handling this change: ${describeForUser(error)} If it reached Palette, the follower reads its end; it is not sent twice.`,
    );
  }
}

/** Cards at the console: printed, and printed again as the follower edits them. */
export function consoleChangeBoard(print: (text: string) => void): ChangeBoard {
  let sequence = 0;
  return {
    async post(channel, card) {
      print(renderBlocks(changeCardBlocks(card)));
      return { channel, ts: String(++sequence) };
    },
    async update(_channel, _ts, card) {
      print(renderBlocks(changeCardBlocks(card)));
    },
    async postApproval(channel, card) {
      print(renderBlocks(approvalCardBlocks(card)));
      return { channel, ts: String(++sequence) };
    },
    async updateApproval(_channel, _ts, card) {
      print(renderBlocks(approvalCardBlocks(card)));
    },
    async sendFile(_userId, fileName, content) {
      // a log file may hold anything the cluster logged: not written where others could read it
      print(`(in Slack ${fileName}, ${content.length} bytes, goes to your DMs)`);
    },
    async tell(_channel, _userId, mrkdwn) {
      print(renderBlocks(errorBlocks(mrkdwn)));
    },
  };
}

/**
 * After a change reached Palette, the cluster's story as `/palette why` tells it: the change is
 * in Palette's audit with its actor, in the bot's record with its requester, and (in the demo)
 * next to whatever else happened to the cluster.
 */
async function printStory(options: ChangePromptsOptions): Promise<void> {
  const { plan } = options.reply;
  options.print(`What changed and who did it (/palette why ${plan.cluster.name}):`);
  const story = await dispatch(
    `why ${quoteArg(plan.cluster.uid)}${scopeArg(plan.cluster.projectUid || undefined)}`,
    { ...options.deps, requester: options.requester },
  );
  if (story.kind === "message") options.print(renderBlocks(replyBlocks(story.view)));
}
