import type { Answer, Assistant, Surface } from "../assistant/ask.ts";
import type { Logger } from "../log.ts";
import type { Requester } from "../verb-kit/types.ts";
import {
  assistantAnswerBlocks,
  assistantAnswerText,
  shareRow,
  streamedText,
} from "../views/assistant.ts";
import { escapeMrkdwn } from "../views/mrkdwn.ts";
import { describeSlackError } from "./slack-errors.ts";
import type { WebClient } from "./types.ts";

/**
 * An assistant's answer in Slack (issue 33). In a thread (a mention's, the assistant view's) the
 * answer is streamed with chat.startStream / appendStream / stopStream; elsewhere, or when Slack
 * refuses the stream, one message is posted and edited as the answer grows. Only lines the
 * grounding check passed are ever shown while it is worked out; an answer that fails the check at
 * the end is replaced whole by the refusal and its sources.
 */

export interface SlackQuestion {
  text: string;
  requester: Requester;
  client: WebClient;
  channel: string;
  /** the thread to answer in; absent (a top-level DM): one edited message, no stream */
  threadTs?: string;
  surface: Surface;
  /** the assistant view's status line (assistant.threads.setStatus); absent elsewhere */
  setStatus?: (status: string) => Promise<unknown>;
}

/** a top-level DM has no thread: after this long without a question, a new conversation starts */
export const DM_QUIET_MS = 3_600_000;

type Mode = { kind: "idle" } | { kind: "stream"; ts: string } | { kind: "edit"; ts: string };

/**
 * Is this a conversation others read (a channel, a group DM), not the asker's own DM? Slack's DM
 * IDs start with D; a channel's with C, a private channel's or group DM's with G.
 */
export function seenByOthers(channel: string): boolean {
  return !channel.startsWith("D");
}

/**
 * Streamed text is sent in pieces of at least this many characters (Slack's SDK buffers 256 in
 * its ChatStreamer): appendStream is Tier 4 and chat.update Tier 3, so not one call per line;
 * what is left at the end goes with chat.stopStream.
 */
export const STREAM_BATCH_CHARS = 256;
/** chat.stopStream takes at most this much markdown_text */
const STOP_MARKDOWN_MAX = 12_000;

/** runs an answer's work in the assistant's room (src/slack/run-command.ts assistantRoom) */
export type AnswerRoom = <T>(work: () => Promise<T>) => Promise<T>;

/** the first status, shown before the answer may wait for its turn in the room */
const FIRST_STATUS = "reading Palette…";

export async function answerInSlack(
  assistant: Assistant,
  question: SlackQuestion,
  logger: Logger,
  room: AnswerRoom = (work) => work(),
): Promise<Answer> {
  if (seenByOthers(question.channel)) {
    return answerToAskerAlone(assistant, question, logger, room);
  }
  const { client, channel, threadTs } = question;
  let mode: Mode = { kind: "idle" };
  let streamed = "";
  /** in a message edited as the answer grows (a DM): the text it shows */
  let edited = "";
  let lastStatus = "";
  const warn = (error: unknown, what: string) =>
    logger.warn({ slackError: describeSlackError(error).code }, what);

  const postOrEdit = async (text: string, blocks?: ReturnType<typeof assistantAnswerBlocks>) => {
    if (mode.kind === "edit") {
      await client.chat.update({ channel, ts: mode.ts, text, ...(blocks ? { blocks } : {}) });
      return;
    }
    const posted = await client.chat.postMessage({
      channel,
      text,
      ...(threadTs ? { thread_ts: threadTs } : {}),
      ...(blocks ? { blocks } : {}),
    });
    if (posted.ts) mode = { kind: "edit", ts: posted.ts };
  };

  const status = async (text: string) => {
    if (text === lastStatus) return;
    lastStatus = text;
    if (question.setStatus) {
      await question.setStatus(text).catch((error: unknown) => warn(error, "status not set"));
      return;
    }
    if (threadTs) {
      // a thread's status line; where Slack does not offer one, the 👀 on the question stands
      await client.assistant.threads
        .setStatus({ channel_id: channel, thread_ts: threadTs, status: text })
        .catch((error: unknown) => warn(error, "thread status not set"));
      return;
    }
    // a top-level DM: the message that will hold the answer says what is going on
    if (mode.kind !== "stream") {
      await postOrEdit(`_${escapeMrkdwn(text)}_`).catch((error: unknown) =>
        warn(error, "status not shown"),
      );
    }
  };

  const progress = async (text: string) => {
    const shown = streamedText(text);
    try {
      if (mode.kind === "stream") {
        const delta = shown.slice(streamed.length);
        if (delta.length < STREAM_BATCH_CHARS) return;
        await client.chat.appendStream({ channel, ts: mode.ts, markdown_text: delta });
        streamed = shown;
        return;
      }
      if (mode.kind === "idle" && threadTs) {
        const started = await client.chat
          .startStream({
            channel,
            thread_ts: threadTs,
            markdown_text: shown,
            recipient_user_id: question.requester.userId,
            ...(question.requester.teamId ? { recipient_team_id: question.requester.teamId } : {}),
          })
          .catch((error: unknown) => {
            // an older workspace, a channel where streams are not allowed: edit a message instead
            warn(error, "answer not streamed; edited instead");
            return undefined;
          });
        if (started?.ts) {
          mode = { kind: "stream", ts: started.ts };
          streamed = shown;
          return;
        }
      }
      // an edited message: the first lines at once, then an edit per batch, not per line
      if (
        mode.kind === "edit" &&
        edited !== "" &&
        shown.length - edited.length < STREAM_BATCH_CHARS
      )
        return;
      await postOrEdit(shown);
      edited = shown;
    } catch (error) {
      warn(error, "partial answer not shown");
    }
  };

  // the person sees at once that the question is being worked on, even while it waits its turn
  // behind ASSISTANT_MAX_CONCURRENT answers (the model's first status is the same line)
  await status(FIRST_STATUS);
  return room(async () => {
    const answer = await assistant.ask(
      {
        text: question.text,
        requester: question.requester,
        conversation: `${channel}:${threadTs ?? "dm"}`,
        surface: question.surface,
        ...(threadTs ? {} : { quietMs: DM_QUIET_MS }),
      },
      { status, progress },
    );

    const fallback = assistantAnswerText(answer);
    // set by the callbacks above while the answer was worked out
    const ended = mode as Mode;
    try {
      if (ended.kind === "stream") {
        const ts = ended.ts;
        const tail = assistantAnswerBlocks({ ...answer, withText: false });
        // the rest of the answer (held lines that passed at the end, the last line, the batch not
        // yet sent) goes with stopStream; when what was streamed is not the start of the final
        // text (a link a later read grounded), the message is edited whole instead
        const final = answer.kind === "answered" ? streamedText(answer.text) : "";
        const rest = final.startsWith(streamed) ? final.slice(streamed.length) : undefined;
        const appendable = rest !== undefined && rest.length <= STOP_MARKDOWN_MAX;
        await client.chat.stopStream({
          channel,
          ts,
          ...(answer.kind === "answered" && appendable && rest !== ""
            ? { markdown_text: rest }
            : {}),
          ...(answer.kind === "answered" ? { blocks: tail } : {}),
        });
        // the streamed lines were grounded one by one; an answer that failed as a whole is replaced
        if (answer.kind !== "answered" || !appendable) {
          await client.chat.update({
            channel,
            ts,
            text: fallback,
            blocks: assistantAnswerBlocks(answer),
          });
        }
      } else {
        await postOrEdit(fallback, assistantAnswerBlocks(answer));
      }
    } catch (error) {
      warn(error, "assistant answer not delivered");
    }
    // an empty status clears the line
    if (question.setStatus) await question.setStatus("").catch(() => undefined);
    else if (threadTs && lastStatus !== "") {
      await client.assistant.threads
        .setStatus({ channel_id: channel, thread_ts: threadTs, status: "" })
        .catch(() => undefined);
    }
    return answer;
  });
}

/**
 * A question in a channel (issue 36 item 2): the answer rests on what the asker may read (under
 * IDENTITY=strict, with their own key), so it goes to them alone, as an ephemeral message in the
 * thread with a Share button, as a typed read answers unless `--share`. Nothing is streamed:
 * Slack's chat.startStream writes a message the whole channel sees, and no status line names a
 * read. The 👀 on the question says it is being worked on.
 */
async function answerToAskerAlone(
  assistant: Assistant,
  question: SlackQuestion,
  logger: Logger,
  room: AnswerRoom,
): Promise<Answer> {
  const { client, channel, threadTs } = question;
  return room(async () => {
    const answer = await assistant.ask(
      {
        text: question.text,
        requester: question.requester,
        conversation: `${channel}:${threadTs ?? "dm"}`,
        surface: question.surface,
      },
      { status: () => undefined },
    );
    const blocks = assistantAnswerBlocks(answer);
    if (answer.kind === "answered" && answer.turnId !== undefined) {
      blocks.push(
        shareRow({
          turnId: answer.turnId,
          channel,
          ...(threadTs ? { threadTs } : {}),
          sources: answer.sources.map((source) => source.command),
        }),
      );
    }
    await client.chat
      .postEphemeral({
        channel,
        user: question.requester.userId,
        text: assistantAnswerText(answer),
        blocks,
        ...(threadTs ? { thread_ts: threadTs } : {}),
      })
      .catch((error: unknown) =>
        logger.warn(
          { slackError: describeSlackError(error).code },
          "assistant answer not delivered",
        ),
      );
    return answer;
  });
}
