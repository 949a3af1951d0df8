import type { KnownBlock, ModalView, PlainTextOption } from "@slack/types";
import { MAX_MUTE_DAYS } from "../model/hold-time.ts";
import { section } from "./blocks.ts";
import { bold, code } from "./mrkdwn.ts";

/**
 * The card's "Mute cluster…" modal: for how long (one day, seven days, until a date) and why.
 * Each input's block_id and action_id is the same id; src/slack/mute-form.ts reads them back.
 */

export const MUTE_CALLBACK_ID = "notify_mute";

export const MUTE_FIELDS = {
  length: "mute_length",
  until: "mute_until",
  reason: "mute_reason",
} as const;

/** The radio values; "until" takes the date picker's day. */
export const MUTE_LENGTHS = ["1d", "7d", "until"] as const;
export type MuteLengthChoice = (typeof MUTE_LENGTHS)[number];

/** A reason longer than this is cut by Slack's field itself (and refused by the command). */
export const MUTE_REASON_MAX = 200;

const plain = (text: string) => ({ type: "plain_text" as const, text });

const LENGTH_OPTIONS: PlainTextOption[] = [
  { text: plain("1 day"), value: "1d" },
  { text: plain("7 days"), value: "7d" },
  { text: plain("Until a date (below)"), value: "until" },
];

export function muteModal(input: {
  clusterName: string;
  /** the channel and cluster, for the submission (src/slack/mute-form.ts) */
  metadata: string;
}): ModalView {
  const name = bold(input.clusterName) || code(input.clusterName);
  const blocks: KnownBlock[] = [
    section(
      `Mute ${name} in this channel: its changes and alerts are kept, and one line says what happened when the mute ends.`,
    ),
    {
      type: "input",
      block_id: MUTE_FIELDS.length,
      label: plain("For"),
      element: {
        type: "radio_buttons",
        action_id: MUTE_FIELDS.length,
        options: LENGTH_OPTIONS,
        initial_option: LENGTH_OPTIONS[0],
      },
    },
    {
      type: "input",
      block_id: MUTE_FIELDS.until,
      optional: true,
      label: plain("Until"),
      hint: plain(
        `With "Until a date": the mute ends as that day begins (00:00 UTC), at most ${MAX_MUTE_DAYS} days from now.`,
      ),
      element: {
        type: "datepicker",
        action_id: MUTE_FIELDS.until,
        placeholder: plain("Pick a day"),
      },
    },
    {
      type: "input",
      block_id: MUTE_FIELDS.reason,
      optional: true,
      label: plain("Reason"),
      hint: plain("Shown on the card, in /palette mutes, and when the mute ends."),
      element: {
        type: "plain_text_input",
        action_id: MUTE_FIELDS.reason,
        max_length: MUTE_REASON_MAX,
        placeholder: plain("e.g. kernel upgrades until Friday"),
      },
    },
  ];
  return {
    type: "modal",
    callback_id: MUTE_CALLBACK_ID,
    private_metadata: input.metadata,
    title: plain("Mute cluster"),
    submit: plain("Mute"),
    close: plain("Cancel"),
    blocks,
  };
}
