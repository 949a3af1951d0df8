import type { KnownBlock } from "@slack/types";
import { RUN_COMMAND_ACTION } from "../model/command-text.ts";

/**
 * Block Kit as terminal text: the console shows the same replies Slack would. Conversion is
 * light (emoji, bold, links, entities); control characters from API data are removed so a
 * cluster name cannot move the cursor or recolour the terminal.
 */

export interface RenderOptions {
  /** ANSI bold/dim; off for pipes and tests */
  color?: boolean;
}

const EMOJI: Record<string, string> = {
  large_green_circle: "🟢",
  rotating_light: "🚨",
  hourglass_flowing_sand: "⏳",
  white_circle: "⚪",
  wastebasket: "🗑",
  black_circle: "⚫",
  // the channel digest's and the card's on-call status
  new: "🆕",
  repeat: "🔁",
  newspaper: "📰",
  mute: "🔇",
  no_entry_sign: "🚫",
  red_circle: "🔴",
  white_check_mark: "✅",
  warning: "⚠️",
  grey_question: "❔",
  x: "❌",
  no_entry: "⛔",
  lock: "🔒",
  mag: "🔍",
  eyes: "👀",
  sleeping: "😴",
  loud_sound: "🔊",
  alarm_clock: "⏰",
  // day-2 changes: freezes, approvals
  snowflake: "❄️",
  sunny: "☀️",
  busts_in_silhouette: "👥",
  hourglass: "⌛",
  arrows_counterclockwise: "🔄",
  // /palette why: Palette's audit, the bot's record, events
  memo: "📝",
  robot_face: "🤖",
  bell: "🔔",
};

// everything but tab and newline
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

type Json = Record<string, unknown>;

function style(options: RenderOptions, code: string, text: string): string {
  return options.color ? `\u001b[${code}m${text}\u001b[0m` : text;
}

/** mrkdwn → terminal text. */
export function mrkdwnToText(mrkdwn: string, options: RenderOptions = {}): string {
  let text = mrkdwn.replace(CONTROL, "");
  text = text.replace(/```([\s\S]*?)```/g, (_, body: string) =>
    body
      .split("\n")
      .map((line) => `    ${line}`)
      .join("\n"),
  );
  // a Slack date shows its fallback, as a client that cannot format it would
  text = text.replace(/<!date\^[^|<>]*\|([^<>]*)>/g, "$1");
  text = text.replace(
    /<([^<>|]+)\|([^<>]*)>/g,
    (_, url: string, label: string) => `${label} (${url})`,
  );
  text = text.replace(/<([^<>|]+)>/g, "$1");
  text = text.replace(/:([a-z0-9_+-]+):/g, (whole, name: string) => EMOJI[name] ?? whole);
  text = text.replace(
    /(^|[\s(])\*([^*\n]+)\*(?=$|[\s).,:;!?])/gm,
    (_, before: string, inner: string) => `${before}${style(options, "1", inner)}`,
  );
  text = text.replace(/(^|[\s(])_([^_\n]+)_(?=$|[\s).,:;!?])/gm, "$1$2");
  return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

function plain(value: unknown): string {
  return typeof value === "object" && value !== null && typeof (value as Json).text === "string"
    ? ((value as Json).text as string).replace(CONTROL, "")
    : "";
}

function textOf(value: unknown, options: RenderOptions): string {
  if (typeof value !== "object" || value === null) return "";
  const object = value as Json;
  if (typeof object.text !== "string") return "";
  return object.type === "mrkdwn" ? mrkdwnToText(object.text, options) : plain(object);
}

/** A field is usually `*Label*\nvalue`: shown as `Label: value`. */
function fieldLine(value: unknown, options: RenderOptions): string {
  const text = textOf(value, { ...options, color: false });
  const [label, ...rest] = text.split("\n");
  return rest.length > 0 ? `${label}: ${rest.join(" ")}` : (label ?? "");
}

export function renderBlocks(blocks: readonly KnownBlock[], options: RenderOptions = {}): string {
  const out: string[] = [];
  for (const raw of blocks) {
    const block = raw as unknown as Json;
    switch (block.type) {
      case "header": {
        const text = plain(block.text);
        out.push(style(options, "1", text), "=".repeat(Math.min(Math.max(text.length, 3), 80)));
        break;
      }
      case "section": {
        if (block.text !== undefined) out.push(textOf(block.text, options));
        if (Array.isArray(block.fields)) {
          for (const field of block.fields) out.push(`  ${fieldLine(field, options)}`);
        }
        if (block.accessory !== undefined) out.push(button(block.accessory));
        break;
      }
      case "context": {
        const elements = Array.isArray(block.elements) ? block.elements : [];
        const text = elements
          .map((element) => textOf(element, { ...options, color: false }))
          .join("  ");
        out.push(style(options, "2", text));
        break;
      }
      case "divider":
        out.push("-".repeat(40));
        break;
      case "actions": {
        const elements = Array.isArray(block.elements) ? block.elements : [];
        out.push(elements.map(button).join(" "));
        // in a terminal nothing is clickable: show what each command button would run (a card's
        // own buttons, Snooze or Mute, carry data for the Slack edge, not a command)
        for (const element of elements) {
          const object = element as Json;
          const label = plain(object.text);
          const runs =
            typeof object.action_id !== "string" || object.action_id.startsWith(RUN_COMMAND_ACTION);
          if (object.type === "overflow" && runs && Array.isArray(object.options)) {
            // a card's "Actions…" menu: each option is a command, listed as a button's would be
            for (const option of object.options as Json[]) {
              if (typeof option.value !== "string") continue;
              out.push(
                style(
                  options,
                  "2",
                  `  ${plain(option.text)}: /palette ${option.value.replace(CONTROL, "")}`,
                ),
              );
            }
          } else if (typeof object.value === "string" && runs) {
            out.push(
              style(options, "2", `  ${label}: /palette ${object.value.replace(CONTROL, "")}`),
            );
          } else if (typeof object.url === "string") {
            out.push(style(options, "2", `  ${label}: ${object.url.replace(CONTROL, "")}`));
          }
        }
        break;
      }
      default:
        break;
    }
  }
  return out.join("\n");
}

function button(element: unknown): string {
  const object = (element ?? {}) as Json;
  // a select shows its placeholder, as Slack draws it
  if (object.type === "static_select") return `[${plain(object.placeholder)} ▾]`;
  if (object.type === "overflow") return "[Actions… ▾]";
  return `[${plain(object.text)}]`;
}
