import { createReadStream } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { allowAll } from "../access/types.ts";
import type { Assistant } from "../assistant/ask.ts";
import { planMessage } from "../conversation/plan.ts";
import { unfurlLinks } from "../conversation/unfurl.ts";
import { dispatch, findVerb } from "../registry/dispatch.ts";
import { CardStore } from "../store/cards.ts";
import { EventClaimStore } from "../store/event-claims.ts";
import type { CommandDeps, FileReply, ModalReply, Reply, Requester } from "../verb-kit/types.ts";
import { assistantAnswerBlocks } from "../views/assistant.ts";
import { replyBlocks } from "../views/reply.ts";
import { unfurlBlocks } from "../views/unfurl.ts";
import { consoleAckArgument, runConsoleAck } from "./ack.ts";
import { writePrivateFile } from "./private-file.ts";
import { type RenderOptions, renderBlocks } from "./render.ts";

export interface ConsoleOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  deps: CommandDeps;
  requester?: Requester;
  /**
   * the launch form as prompts (src/console/launch-prompts.ts); `ask` reads the next input line
   * from the same stream as the commands. Absent: say the form is not offered.
   */
  onModal?: (reply: ModalReply, io: ConsoleIo) => Promise<void>;
  /** where a kubeconfig goes; default: written to `fileDir/<name>` with mode 0600 */
  onFile?: (reply: FileReply) => Promise<void>;
  /** default: the current directory */
  fileDir?: string;
  /** default: on when the output is a TTY */
  color?: boolean;
  /** ASSISTANT_PROVIDER set: `ask <question>` asks it; absent, `ask` is no command */
  assistant?: Assistant;
}

/** Question-and-answer over the console's own input and output. */
export interface ConsoleIo {
  /** prints the question and resolves with the next line; rejects at end of input */
  ask(question: string): Promise<string>;
  print(text: string): void;
}

export const CONSOLE_REQUESTER: Requester = { userId: "console", channelId: "console" };

/** `/palette clusters`, `palette clusters` and `clusters` all mean the same at the prompt. */
export function commandText(line: string): string | undefined {
  const text = line.trim();
  if (text === "" || text.startsWith("#")) return undefined;
  return text.replace(/^\/?palette(\s+|$)/i, "");
}

/**
 * Reads commands line by line from a TTY or a pipe, runs them through the same dispatcher as
 * Slack and prints the rendered replies; resolves at end of input (or `exit`). The console
 * user is the operator and may do everything.
 */
export async function runConsole(options: ConsoleOptions): Promise<void> {
  const { input, output } = options;
  const tty =
    (output as NodeJS.WriteStream).isTTY === true && (input as NodeJS.ReadStream).isTTY === true;
  const render: RenderOptions = { color: options.color ?? tty };
  const requester = options.requester ?? CONSOLE_REQUESTER;
  const ctx = { ...options.deps, policy: allowAll, requester };
  const lines = createInterface({ input, output: tty ? output : undefined, terminal: tty });
  const write = (text: string) => output.write(`${text}\n`);
  if (tty) {
    write("palette-chatops console: type `help`, or `exit` to leave.");
    lines.setPrompt("palette> ");
    lines.prompt();
  }
  // one iterator for commands and for the launch form's questions, so answers are not lost
  const iterator = lines[Symbol.asyncIterator]();
  const io: ConsoleIo = {
    async ask(question) {
      output.write(`${question} `);
      const next = await iterator.next();
      if (next.done) throw new Error("end of input");
      if (!tty) output.write(`${next.value}\n`);
      return next.value;
    },
    print: write,
  };
  try {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      const text = commandText(next.value);
      if (text !== undefined) {
        if (/^(exit|quit)$/i.test(text)) break;
        const ack = consoleAckArgument(text);
        const mention = MENTION.exec(text);
        const question = options.assistant ? /^ask\s+(.+)$/is.exec(text)?.[1] : undefined;
        if (question !== undefined && options.assistant) {
          await askAssistant(options.assistant, question, ctx, render, write);
        } else if (/^https?:\/\/\S+$/i.test(text)) {
          await showUnfurl(text, ctx, render, write);
        } else if (mention) {
          await showMention(mention[1] ?? "", ctx, options, render, write, io);
        } else if (ack !== undefined) {
          // the card's Acknowledge button, which a terminal cannot click
          await runConsoleAck(ack, ctx, (chunk) => output.write(chunk));
        } else {
          const reply = await dispatch(text, ctx);
          await show(reply, options, render, write, io);
        }
      }
      if (tty) lines.prompt();
    }
  } finally {
    lines.close();
  }
}

/** `@Palette <command>` (or `@palette`): what a mention in Slack would answer, in its thread */
const MENTION = /^@palette\b[\s,:]*(.*)$/is;

async function showMention(
  text: string,
  ctx: CommandDeps & { requester: Requester },
  options: ConsoleOptions,
  render: RenderOptions,
  write: (text: string) => void,
  io: ConsoleIo,
): Promise<void> {
  // each console line is a thread of its own: the short help is not held back for a second
  // line that no one in Slack would see as the same thread
  const plan = await planMessage(
    {
      text,
      botUserId: undefined,
      channel: "console",
      threadTs: undefined,
      ts: `${Date.now()}`,
      direct: true,
    },
    {
      cards: new CardStore(ctx.db),
      claims: new EventClaimStore(ctx.db, ctx.clock),
      isVerb: (name) => findVerb(name) !== undefined,
      askable: options.assistant !== undefined,
    },
  );
  write("(in Slack this answer goes to the mention's thread, for the channel to see)");
  if (plan.kind === "quiet") return;
  if (plan.kind === "ask") {
    if (options.assistant) await askAssistant(options.assistant, plan.question, ctx, render, write);
    return;
  }
  const reply = plan.kind === "help" ? plan.reply : await dispatch(plan.text, ctx);
  await show(reply, options, render, write, io);
}

/** `ask <question>`: the assistant's answer, its reads shown as they happen. */
async function askAssistant(
  assistant: Assistant,
  question: string,
  ctx: CommandDeps & { requester: Requester },
  render: RenderOptions,
  write: (text: string) => void,
): Promise<void> {
  const answer = await assistant.ask(
    {
      text: question,
      requester: ctx.requester,
      conversation: `console:${ctx.requester.userId}`,
      surface: "console",
    },
    { status: (text) => write(`(${text})`) },
  );
  // no 👍/👎 at a terminal; a proposal is the command to type, which asks for confirmation
  write(renderBlocks(assistantAnswerBlocks({ ...answer, turnId: undefined }), render));
  for (const proposal of answer.proposals) write(`(to go ahead, type: ${proposal.command})`);
  write("");
}

/** A pasted console link: what Slack would show under the message, or why nothing. */
async function showUnfurl(
  url: string,
  ctx: CommandDeps,
  render: RenderOptions,
  write: (text: string) => void,
): Promise<void> {
  const views = await unfurlLinks([url], ctx);
  const view = views.get(url);
  if (!view) {
    write(
      "(in Slack this link would not unfurl: not a cluster or project page of PALETTE_CONSOLE_URL, outside PALETTE_PROJECTS, or Palette could not say)",
    );
  } else {
    write("(in Slack this card unfurls under the message with the link)");
    write(renderBlocks(unfurlBlocks(view), render));
  }
  write("");
}

async function show(
  reply: Reply,
  options: ConsoleOptions,
  render: RenderOptions,
  write: (text: string) => void,
  io: ConsoleIo,
): Promise<void> {
  try {
    switch (reply.kind) {
      case "message":
        write(renderBlocks(replyBlocks(reply.view), render));
        if (reply.visibility === "in_channel") write("(in Slack this answer goes to the channel)");
        break;
      case "file":
        if (options.onFile) {
          await options.onFile(reply);
        } else {
          const path = join(options.fileDir ?? process.cwd(), reply.fileName);
          // a kubeconfig is a credential, an audit export names people: a new 0600 file, never
          // an old file's mode or a symlink
          // an audit export is spooled to disk: copied as a stream, then its temp file deleted
          const content = reply.content;
          try {
            await writePrivateFile(
              path,
              Buffer.isBuffer(content) ? content : createReadStream(content.path),
            );
          } finally {
            if (!Buffer.isBuffer(content)) await content.dispose();
          }
          const what = reply.auditAs === "audit-export" ? "audit" : "kubeconfig";
          write(`${what} written to ${options.fileDir ? path : `./${reply.fileName}`}`);
        }
        break;
      case "modal":
        if (options.onModal) await options.onModal(reply, io);
        else if (reply.modal === "change") {
          // the plan was read from Palette and allowed; confirming it is Slack's modal for now
          write(
            `\`${reply.plan.verb}\` is confirmed in a Slack modal, which this console does not offer yet; use Slack.`,
          );
        } else
          write("`launch` needs the launch form, which this console does not offer; use Slack.");
        break;
    }
  } catch (error) {
    write(`Could not show that answer: ${error instanceof Error ? error.message : String(error)}`);
  }
  write("");
}
