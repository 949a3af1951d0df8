import type { ActionsBlock, KnownBlock } from "@slack/types";
import { buttonRows, commandButton, context, section } from "./blocks.ts";
import { code, escapeMrkdwn } from "./mrkdwn.ts";

/**
 * The assistant's answer as Block Kit (issue 33): the words (the model's, escaped: a name or an
 * event message cannot ping or link), a button per proposed change that runs the typed verb (and
 * so opens its usual confirmation), the Sources (each read as the command that shows it again),
 * and 👍/👎. Pure: data in, blocks out.
 */

export const ASSISTANT_FEEDBACK_ACTION = "assistant_feedback";
/** the Share button under an answer only its asker sees (a channel's, issue 36 item 2) */
export const ASSISTANT_SHARE_ACTION = "assistant_share";

export interface AssistantAnswerView {
  kind: "answered" | "ungrounded" | "failed" | "limited";
  /** the answer's plain text, unescaped */
  text: string;
  sources: ReadonlyArray<{ command: string; cluster?: string }>;
  /** `label`: the command with the cluster's name, when `command` names it by UID */
  proposals: ReadonlyArray<{ command: string; verb: string; cluster: string; label?: string }>;
  /** failed or limited: the typed commands that answer it */
  typed: readonly string[];
  /** the stored turn, for 👍/👎; absent: no feedback buttons */
  turnId?: number;
  /** false: the words were streamed already, only what follows them is wanted */
  withText?: boolean;
}

/**
 * A markdown link `[label](url)` as plain `label (url)`: a name or event message the model echoes
 * cannot become a link whose label hides where it goes.
 */
export function plainLinks(text: string): string {
  return text.replace(/\[([^\]\n]{0,200})\]\(([^)\s]{0,500})\)/g, "$1 ($2)");
}

/** The model's answer, escaped for a stream's markdown_text: no mention, no hidden link. */
export function streamedText(text: string): string {
  return escapeMrkdwn(plainLinks(text));
}

/** The model's markdown as Slack mrkdwn: escaped, `**bold**` as `*bold*`, no hidden links. */
export function answerMrkdwn(text: string): string {
  return escapeMrkdwn(plainLinks(text))
    .replace(/\*\*([^*\n]+)\*\*/g, "*$1*")
    .replace(/^#{1,6}\s+(.+)$/gm, "*$1*");
}

/** the Sources line: each read as its command */
export function sourcesLine(sources: AssistantAnswerView["sources"]): string {
  if (sources.length === 0) return "Sources: no read of Palette";
  return `Sources: ${sources.map((source) => code(source.command)).join(" · ")}`;
}

/** cut at lines into pieces a section holds */
function sections(mrkdwn: string): KnownBlock[] {
  const out: KnownBlock[] = [];
  let piece = "";
  for (const line of mrkdwn.split("\n")) {
    if (piece.length + line.length + 1 > 2_900 && piece !== "") {
      out.push(section(piece));
      piece = "";
    }
    piece = piece === "" ? line : `${piece}\n${line}`;
  }
  if (piece.trim() !== "") out.push(section(piece));
  return out.slice(0, 8);
}

export function assistantAnswerBlocks(view: AssistantAnswerView): KnownBlock[] {
  const icon = view.kind === "answered" ? "" : view.kind === "ungrounded" ? ":warning: " : ":x: ";
  const blocks: KnownBlock[] =
    view.withText === false ? [] : sections(`${icon}${answerMrkdwn(view.text)}`);
  if (view.proposals.length > 0) {
    blocks.push(
      ...buttonRows(
        view.proposals.map((proposal, index) =>
          commandButton(
            `Review: ${proposal.label ?? proposal.command}`,
            proposal.command,
            `assistant-${index}`,
          ),
        ),
        1,
      ),
    );
    blocks.push(
      context(
        "Nothing has been sent: the button opens the usual confirmation, where permissions, freezes and approvals apply.",
      ),
    );
  }
  if (view.typed.length > 0 && view.kind !== "answered") {
    blocks.push(
      context(`These commands answer it directly: ${view.typed.map((c) => code(c)).join(" · ")}`),
    );
  }
  if (view.kind !== "limited") blocks.push(context(sourcesLine(view.sources)));
  if (view.turnId !== undefined) blocks.push(feedbackRow(view.turnId));
  return blocks;
}

function feedbackRow(turnId: number): ActionsBlock {
  const button = (vote: "up" | "down", label: string) => ({
    type: "button" as const,
    text: { type: "plain_text" as const, text: label, emoji: true },
    action_id: `${ASSISTANT_FEEDBACK_ACTION}:${vote}`,
    value: String(turnId),
  });
  return {
    type: "actions",
    block_id: `assistant_feedback_${turnId}`,
    elements: [button("up", "👍"), button("down", "👎")],
  };
}

/**
 * The fallback text (notifications, screen readers): the same words, escaped as well, since
 * Slack expands mentions in it too.
 */
export function assistantAnswerText(view: AssistantAnswerView): string {
  const sources = view.sources.map((source) => source.command).join(", ");
  return escapeMrkdwn(`${view.text}${sources ? ` Sources: ${sources}` : ""}`).slice(0, 3_000);
}

/** What the Share button carries: the stored turn, where to post it, and its sources. */
export interface ShareValue {
  turnId: number;
  channel: string;
  threadTs?: string;
  sources: readonly string[];
}

/** Slack allows 2,000 characters in a button's value: sources are left off the end to fit. */
export function shareValueText(value: ShareValue): string {
  let sources = value.sources.slice(0, 8);
  let text = JSON.stringify({ ...value, sources });
  while (text.length > 2_000 && sources.length > 0) {
    sources = sources.slice(0, -1);
    text = JSON.stringify({ ...value, sources });
  }
  return text;
}

/** "Share in the thread": posts the answer for everyone, as a typed read's `--share` does. */
export function shareRow(value: ShareValue): ActionsBlock {
  return {
    type: "actions",
    block_id: `assistant_share_${value.turnId}`,
    elements: [
      {
        type: "button",
        text: { type: "plain_text", text: "Share in the thread", emoji: true },
        action_id: ASSISTANT_SHARE_ACTION,
        value: shareValueText(value),
      },
    ],
  };
}

/** The answer as everyone in the thread sees it once its asker shares it. */
export function sharedAnswerBlocks(input: {
  text: string;
  sources: readonly string[];
  sharedBy: string;
}): KnownBlock[] {
  return [
    ...assistantAnswerBlocks({
      kind: "answered",
      text: input.text,
      sources: input.sources.map((command) => ({ command })),
      proposals: [],
      typed: [],
    }),
    context(`Shared by <@${input.sharedBy}> from the assistant's answer to them.`),
  ];
}
