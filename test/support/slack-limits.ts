/**
 * What a real Slack refuses in a message or a view, as a pure check the fake Slack
 * (test/support/fake-slack.ts) runs on every payload and tests run on what the bot builds.
 *
 * The numbers are Slack's published Block Kit limits (docs.slack.dev/reference/block-kit: blocks,
 * block elements, composition objects, views) and the chat.* method pages. One is not published:
 * `chat.postMessage` answers `msg_blocks_too_long` when the text of all a message's blocks passes
 * about 11,000-13,000 characters (slackapi/bolt-js #2509 saw it at ~13,200; #2867 at 11,341
 * counted as the sum of every `text` string in the blocks). The fake refuses above
 * {@link MESSAGE_BLOCK_TEXT_MAX} measured the same way as #2867, below the lowest refusal seen,
 * so a message the fake takes is one Slack was seen to take.
 *
 * Violations are worded like Slack's `response_metadata.messages`:
 * `[ERROR] must be less than 25 characters [json-pointer:/view/title/text]`.
 */

export const VIEW_BLOCKS_MAX = 100;
export const MESSAGE_BLOCKS_MAX = 50;
export const MESSAGE_TEXT_MAX = 40_000;
/** the sum of all block text a message may carry; see the module comment for where it comes from */
export const MESSAGE_BLOCK_TEXT_MAX = 11_000;

export type MessageRefusal = "invalid_blocks" | "msg_blocks_too_long" | "msg_too_long" | "no_text";

export interface Refusal<E extends string> {
  error: E;
  /** Slack-worded reasons, one per violation */
  messages: string[];
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

class Checker {
  readonly messages: string[] = [];

  fail(pointer: string, reason: string): void {
    this.messages.push(`[ERROR] ${reason} [json-pointer:${pointer}]`);
  }

  /** a string field: present when required, at most `max` characters */
  string(value: unknown, pointer: string, max: number, required = false): void {
    if (value === undefined) {
      if (required) this.fail(pointer, "missing required field");
      return;
    }
    if (typeof value !== "string") {
      this.fail(pointer, "must be a string");
      return;
    }
    if (value.length > max) this.fail(pointer, `must be less than ${max + 1} characters`);
  }

  /** a text object: `plain_text` (or `mrkdwn` where allowed), 1..max characters */
  text(
    value: unknown,
    pointer: string,
    max: number,
    opts: { mrkdwn?: boolean; required?: boolean } = {},
  ): void {
    if (value === undefined) {
      if (opts.required) this.fail(pointer, "missing required field");
      return;
    }
    if (!isObject(value)) {
      this.fail(pointer, "must be a text object");
      return;
    }
    const allowed = opts.mrkdwn ? ["plain_text", "mrkdwn"] : ["plain_text"];
    if (!allowed.includes(String(value.type))) {
      this.fail(`${pointer}/type`, `must be one of ${allowed.join(", ")}`);
    }
    if (typeof value.text !== "string") {
      this.fail(`${pointer}/text`, "must be a string");
      return;
    }
    if (value.text.length === 0) this.fail(`${pointer}/text`, "must be more than 0 characters");
    if (value.text.length > max)
      this.fail(`${pointer}/text`, `must be less than ${max + 1} characters`);
  }

  array(value: unknown, pointer: string, min: number, max: number): unknown[] {
    if (value === undefined) {
      if (min > 0) this.fail(pointer, "missing required field");
      return [];
    }
    if (!Array.isArray(value)) {
      this.fail(pointer, "must be an array");
      return [];
    }
    if (value.length < min) this.fail(pointer, `must provide at least ${min} items`);
    if (value.length > max) this.fail(pointer, `must provide no more than ${max} items`);
    return value;
  }

  confirm(value: unknown, pointer: string): void {
    if (value === undefined) return;
    if (!isObject(value)) {
      this.fail(pointer, "must be a confirm object");
      return;
    }
    this.text(value.title, `${pointer}/title`, 100);
    this.text(value.text, `${pointer}/text`, 300, { mrkdwn: true, required: true });
    this.text(value.confirm, `${pointer}/confirm`, 30);
    this.text(value.deny, `${pointer}/deny`, 30);
  }

  option(value: unknown, pointer: string, opts: { mrkdwn?: boolean } = {}): void {
    if (!isObject(value)) {
      this.fail(pointer, "must be an option object");
      return;
    }
    this.text(value.text, `${pointer}/text`, 75, { mrkdwn: opts.mrkdwn, required: true });
    this.string(value.value, `${pointer}/value`, 150, true);
    this.text(value.description, `${pointer}/description`, 75, { mrkdwn: opts.mrkdwn });
    this.string(value.url, `${pointer}/url`, 3000);
  }

  element(value: unknown, pointer: string, actionIds: Set<string>): void {
    if (!isObject(value)) {
      this.fail(pointer, "must be an element object");
      return;
    }
    if (value.action_id !== undefined) {
      this.string(value.action_id, `${pointer}/action_id`, 255);
      const id = String(value.action_id);
      // Slack: an action_id "should be unique among all other action_ids in the containing block"
      if (actionIds.has(id)) this.fail(`${pointer}/action_id`, `duplicate action_id "${id}"`);
      actionIds.add(id);
    }
    this.text(value.placeholder, `${pointer}/placeholder`, 150);
    this.confirm(value.confirm, `${pointer}/confirm`);
    switch (value.type) {
      case "button":
        this.text(value.text, `${pointer}/text`, 75, { required: true });
        this.string(value.value, `${pointer}/value`, 2000);
        this.string(value.url, `${pointer}/url`, 3000);
        this.string(value.accessibility_label, `${pointer}/accessibility_label`, 75);
        return;
      case "static_select":
      case "multi_static_select": {
        const hasGroups = value.option_groups !== undefined;
        if (hasGroups) {
          const groups = this.array(value.option_groups, `${pointer}/option_groups`, 1, 100);
          groups.forEach((group, g) => {
            const groupPointer = `${pointer}/option_groups/${g}`;
            if (!isObject(group)) {
              this.fail(groupPointer, "must be an option group");
              return;
            }
            this.text(group.label, `${groupPointer}/label`, 75, { required: true });
            this.array(group.options, `${groupPointer}/options`, 1, 100).forEach((option, o) => {
              this.option(option, `${groupPointer}/options/${o}`);
            });
          });
        } else {
          this.array(value.options, `${pointer}/options`, 1, 100).forEach((option, o) => {
            this.option(option, `${pointer}/options/${o}`);
          });
        }
        return;
      }
      case "overflow":
        this.array(value.options, `${pointer}/options`, 2, 5).forEach((option, o) => {
          this.option(option, `${pointer}/options/${o}`);
        });
        return;
      case "radio_buttons":
      case "checkboxes":
        this.array(value.options, `${pointer}/options`, 1, 10).forEach((option, o) => {
          this.option(option, `${pointer}/options/${o}`, { mrkdwn: true });
        });
        return;
      case "plain_text_input": {
        const min = value.min_length;
        const max = value.max_length;
        if (typeof min === "number" && (min < 0 || min > 3000)) {
          this.fail(`${pointer}/min_length`, "must be between 0 and 3000");
        }
        if (typeof max === "number" && (max < 1 || max > 3000)) {
          this.fail(`${pointer}/max_length`, "must be between 1 and 3000");
        }
        if (typeof min === "number" && typeof max === "number" && min > max) {
          this.fail(`${pointer}/min_length`, "must not be more than max_length");
        }
        if (value.initial_value !== undefined) {
          this.string(
            value.initial_value,
            `${pointer}/initial_value`,
            typeof max === "number" ? Math.min(max, 3000) : 3000,
          );
        }
        return;
      }
      case "image":
        this.string(value.alt_text, `${pointer}/alt_text`, 2000, true);
        this.string(value.image_url, `${pointer}/image_url`, 3000);
        return;
      default:
        return;
    }
  }

  block(value: unknown, pointer: string, blockIds: Set<string>): void {
    if (!isObject(value)) {
      this.fail(pointer, "must be a block object");
      return;
    }
    if (value.block_id !== undefined) {
      this.string(value.block_id, `${pointer}/block_id`, 255);
      const id = String(value.block_id);
      // Slack: a block_id "should be unique for each message and each iteration of a message"
      if (blockIds.has(id)) this.fail(`${pointer}/block_id`, `duplicate block_id "${id}"`);
      blockIds.add(id);
    }
    const actionIds = new Set<string>();
    switch (value.type) {
      case "section": {
        if (value.text === undefined && value.fields === undefined) {
          this.fail(pointer, "must define either `text` or `fields`");
        }
        this.text(value.text, `${pointer}/text`, 3000, { mrkdwn: true });
        this.array(value.fields, `${pointer}/fields`, 0, 10).forEach((field, f) => {
          this.text(field, `${pointer}/fields/${f}`, 2000, { mrkdwn: true, required: true });
        });
        if (value.accessory !== undefined)
          this.element(value.accessory, `${pointer}/accessory`, actionIds);
        return;
      }
      case "header":
        this.text(value.text, `${pointer}/text`, 150, { required: true });
        return;
      case "context":
        this.array(value.elements, `${pointer}/elements`, 1, 10).forEach((element, e) => {
          const elementPointer = `${pointer}/elements/${e}`;
          if (isObject(element) && element.type === "image") {
            this.element(element, elementPointer, actionIds);
          } else {
            this.text(element, elementPointer, 3000, { mrkdwn: true, required: true });
          }
        });
        return;
      case "actions":
        this.array(value.elements, `${pointer}/elements`, 1, 25).forEach((element, e) => {
          this.element(element, `${pointer}/elements/${e}`, actionIds);
        });
        return;
      case "input":
        this.text(value.label, `${pointer}/label`, 2000, { required: true });
        this.text(value.hint, `${pointer}/hint`, 2000);
        this.element(value.element, `${pointer}/element`, actionIds);
        return;
      case "image":
        this.string(value.image_url, `${pointer}/image_url`, 3000);
        this.string(value.alt_text, `${pointer}/alt_text`, 2000, true);
        this.text(value.title, `${pointer}/title`, 2000);
        return;
      case "markdown":
        this.string(value.text, `${pointer}/text`, 12_000, true);
        return;
      case "divider":
      case "rich_text":
      case "file":
      case "video":
        return;
      default:
        this.fail(`${pointer}/type`, `unknown block type ${JSON.stringify(value.type)}`);
    }
  }

  blocks(value: unknown, pointer: string, max: number): void {
    const blockIds = new Set<string>();
    this.array(value, pointer, 0, max).forEach((block, b) => {
      this.block(block, `${pointer}/${b}`, blockIds);
    });
  }
}

/** every `text` string in the blocks, the measure slackapi/bolt-js #2867 found Slack refusing by */
export function blockTextLength(blocks: unknown): number {
  let total = 0;
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) walk(item);
    } else if (isObject(value)) {
      for (const [key, field] of Object.entries(value)) {
        if (key === "text" && typeof field === "string") total += field.length;
        else walk(field);
      }
    }
  };
  walk(blocks);
  return total;
}

/**
 * A message as chat.postMessage, chat.update, chat.postEphemeral or a response_url post takes it.
 * `blocks` may be the parsed array or the JSON string a form post carries.
 */
export function checkMessage(message: {
  text?: unknown;
  blocks?: unknown;
  attachments?: unknown;
}): Refusal<MessageRefusal> | undefined {
  const blocks = typeof message.blocks === "string" ? safeParse(message.blocks) : message.blocks;
  const text = typeof message.text === "string" ? message.text : undefined;
  const hasBlocks = Array.isArray(blocks) && blocks.length > 0;
  if (!hasBlocks && !text && message.attachments === undefined) {
    return { error: "no_text", messages: ["[ERROR] must provide text, blocks or attachments"] };
  }
  if (text && text.length > MESSAGE_TEXT_MAX) {
    return {
      error: "msg_too_long",
      messages: [
        `[ERROR] must be less than ${MESSAGE_TEXT_MAX + 1} characters [json-pointer:/text]`,
      ],
    };
  }
  if (blocks !== undefined) {
    const checker = new Checker();
    checker.blocks(blocks, "/blocks", MESSAGE_BLOCKS_MAX);
    if (checker.messages.length > 0) return { error: "invalid_blocks", messages: checker.messages };
    const length = blockTextLength(blocks);
    if (length > MESSAGE_BLOCK_TEXT_MAX) {
      return {
        error: "msg_blocks_too_long",
        messages: [
          `[ERROR] the blocks carry ${length} characters of text, more than ${MESSAGE_BLOCK_TEXT_MAX} [json-pointer:/blocks]`,
        ],
      };
    }
  }
  return undefined;
}

/** A view as views.open, views.update, views.push and views.publish take it. */
export function checkView(view: unknown): Refusal<"invalid_arguments"> | undefined {
  const parsed = typeof view === "string" ? safeParse(view) : view;
  const checker = new Checker();
  if (!isObject(parsed)) {
    checker.fail("/view", "must be a view object");
  } else {
    const isModal = parsed.type === "modal";
    if (!isModal && parsed.type !== "home") checker.fail("/view/type", "must be modal or home");
    if (isModal) {
      checker.text(parsed.title, "/view/title", 24, { required: true });
      checker.text(parsed.submit, "/view/submit", 24);
      checker.text(parsed.close, "/view/close", 24);
      const hasInput =
        Array.isArray(parsed.blocks) &&
        parsed.blocks.some((block) => isObject(block) && block.type === "input");
      if (hasInput && parsed.submit === undefined) {
        checker.fail("/view/submit", "is required when the view has an input block");
      }
    }
    checker.string(parsed.private_metadata, "/view/private_metadata", 3000);
    checker.string(parsed.callback_id, "/view/callback_id", 255);
    checker.string(parsed.external_id, "/view/external_id", 255);
    checker.blocks(parsed.blocks, "/view/blocks", VIEW_BLOCKS_MAX);
    if (parsed.blocks === undefined) checker.fail("/view/blocks", "missing required field");
  }
  return checker.messages.length > 0
    ? { error: "invalid_arguments", messages: checker.messages }
    : undefined;
}

function safeParse(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
