import type { KnownBlock } from "@slack/types";
import type { CardAck, CardPayload } from "../model/notification.ts";
import { context, section } from "./blocks.ts";
import { clampText, LIMITS } from "./limits.ts";
import { escapeMrkdwn, mention, slackDate } from "./mrkdwn.ts";
import { notificationThreadLine, type RenderedMessage } from "./notification.ts";

/**
 * Block Kit for acknowledging a card: the line its thread gets, the recovery line that says who
 * had it, and the private answers to a click that changes nothing.
 */

const fallback = (text: string) => clampText(text, LIMITS.fallbackText);

/** "👀 Acknowledged by @u, 14:02" in the card's thread. */
export function ackThreadLine(ack: CardAck): RenderedMessage {
  const text = `:eyes: Acknowledged by ${mention(ack.userId)}, ${slackDate(ack.at, "time")}`;
  return { text: fallback(text), blocks: [section(text)] };
}

/** The recovery's own thread line, plus who had the incident in hand. */
export function recoveryThreadLine(payload: CardPayload, ack: CardAck): RenderedMessage {
  const line = notificationThreadLine(payload);
  const note = `:white_check_mark: Recovered; ${mention(ack.userId)} had acknowledged it (${slackDate(ack.at, "time")})`;
  return {
    text: fallback(`${line.text} · Recovered; ${mention(ack.userId)} had acknowledged it`),
    blocks: [...line.blocks, context(note)],
  };
}

/** A click on a card someone already acknowledged (private to whoever clicked). */
export function ackAlreadyTaken(ack: CardAck, requesterId: string): RenderedMessage {
  const when = slackDate(ack.at, "time");
  const text =
    ack.userId === requesterId
      ? `:eyes: You acknowledged it already, at ${when}.`
      : `:eyes: Already acknowledged by ${mention(ack.userId)} at ${when}; the first acknowledgement stands. The card's thread has the news.`;
  return { text: fallback(text), blocks: [section(text)] };
}

/** Outside ALLOW_ACK: what happened and who grants it. */
export function ackRefused(hint: string): RenderedMessage {
  const text = ":no_entry: You may not acknowledge notification cards here.";
  const blocks: KnownBlock[] = [section(text)];
  if (hint) blocks.push(context(escapeMrkdwn(hint)));
  return { text: fallback(text), blocks };
}

/** A click on a card the bot no longer follows (deleted and posted again, or not ours). */
export function ackUnknownCard(): RenderedMessage {
  const text =
    ":grey_question: The bot no longer follows this card, so there is nothing to acknowledge here. The cluster's newest card in this channel has the buttons that work.";
  return { text: fallback(text), blocks: [section(text)] };
}
