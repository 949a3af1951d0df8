import type { Logger } from "../log.ts";
import type { CommandDeps, Reply } from "../verb-kit/types.ts";
import { code } from "../views/mrkdwn.ts";
import type { AnswerGate } from "./answer-gate.ts";
import { deliverReply, notice } from "./deliver.ts";
import type { InFlight } from "./in-flight.ts";
import type { CommandTarget, Dispatch, SlackEdge, SlackHooks } from "./types.ts";

/**
 * At most `max` tasks at once; the rest wait in arrival order. A task may leave its slot before
 * it ends (`leave`, given to it): the audit export does once its own room is granted.
 */
export function concurrencyLimit(max: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(task: (leave: () => void) => Promise<T>): Promise<T> => {
    if (active >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    else active++;
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      // hand the slot straight to the next in line, so a newcomer cannot overtake it
      const next = waiting.shift();
      if (next) next();
      else active--;
    };
    try {
      return await task(leave);
    } finally {
      leave();
    }
  };
}

/**
 * The assistant's answers (issue 36 item 7): at most `maxConcurrent` worked out at once, in a room
 * of their own, so an answer (up to ASSISTANT_TIMEOUT_MS of model steps and reads) takes none of
 * the commands' slots; each waits its turn behind the acks of a burst, as a command does, and is
 * tracked so a shutdown drains it. A failure is the caller's, as the answer is.
 */
export function assistantRoom(deps: {
  inFlight: InFlight;
  answerGate?: AnswerGate;
  maxConcurrent: number;
  logger: Logger;
}): SlackEdge["assistantWork"] {
  const limit = concurrencyLimit(deps.maxConcurrent);
  return <T>(work: () => Promise<T>) =>
    deps.inFlight.track(
      limit(async () => {
        await (deps.answerGate?.turn() ?? Promise.resolve());
        return work();
      }),
    );
}

/**
 * The slow half of every command: run it, deliver the reply. Called after the ack, so Slack's
 * 3-second window is never at stake. Never throws: a failure becomes an ephemeral answer.
 */
export function createRunCommand(deps: {
  commandDeps: CommandDeps;
  dispatch: Dispatch;
  hooks: SlackHooks;
  logger: Logger;
  /** the lazy parts still running, for a shutdown to wait on */
  inFlight: InFlight;
  /**
   * Commands answered at once. A burst beyond it waits its turn: the acks of new requests then
   * compete with a bounded amount of work on the event loop, so they stay fast.
   */
  maxConcurrent?: number;
  /** answer work waits its turn behind the acks of a burst (src/slack/answer-gate.ts) */
  answerGate?: AnswerGate;
}): SlackEdge["runCommand"] {
  const turn = () => deps.answerGate?.turn() ?? Promise.resolve();
  const limit = concurrencyLimit(deps.maxConcurrent ?? 8);
  const run = async (
    text: string,
    target: CommandTarget,
    handOff?: (reply: Reply) => (() => Promise<void>) | undefined,
    leaveCommandSlot?: () => void,
  ): Promise<(() => Promise<void>) | undefined> => {
    await turn();
    const started = performance.now();
    const verb = text.trim().split(/\s+/)[0]?.toLowerCase() || "help";
    let reply: Reply;
    try {
      reply = await deps.dispatch(text, {
        ...deps.commandDeps,
        requester: target.requester,
        ...(leaveCommandSlot ? { leaveCommandSlot } : {}),
      });
    } catch (error) {
      deps.logger.error(
        {
          err:
            error instanceof Error ? { name: error.name, message: error.message } : String(error),
          verb,
        },
        "command failed",
      );
      reply = notice(
        `:warning: ${code(verb)} failed on our side; the details are in the bot's log.`,
      );
    }
    // the other answer runs once this command's slot is given back: an assistant's answer may
    // take a minute, and has a room of its own
    const instead = handOff?.(reply);
    if (instead) return instead;
    await turn();
    await deliverReply(reply, target, {
      logger: deps.logger,
      audit: deps.commandDeps.audit,
      hooks: deps.hooks,
    });
    deps.logger.info(
      {
        verb,
        reply: reply.kind,
        userId: target.requester.userId,
        channelId: target.requester.channelId,
        ms: Math.round(performance.now() - started),
      },
      "command answered",
    );
    return undefined;
  };
  return (text, target, handOff) => {
    // a modal must open within 3 s of the trigger_id: `launch` and the change verbs (which
    // open a confirmation) never queue behind slow reads
    const urgent =
      /^\s*(launch|scale|delete|cordon|uncordon|repave|pause|resume|backup|logs|upgrade)\b/i.test(
        text,
      ) && target.triggerId !== undefined;
    // an audit export may wait on Palette for ten minutes: it has room of its own, at most two at
    // once (src/commands/audit-room.ts), and leaves its command slot once that room is granted;
    // its refusals and usage answers take a slot like any other verb's
    const task = (
      urgent ? run(text, target, handOff) : limit((leave) => run(text, target, handOff, leave))
    )
      .then((instead) => instead?.())
      .catch((error: unknown) => {
        deps.logger.error({ err: String(error) }, "command delivery failed");
      });
    return deps.inFlight.track(task);
  };
}
