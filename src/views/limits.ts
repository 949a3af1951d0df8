import type { KnownBlock } from "@slack/types";

/** Slack's Block Kit limits (https://docs.slack.dev/reference/block-kit) that our views meet. */
export const LIMITS = {
  blocksPerMessage: 50,
  sectionText: 3000,
  fieldsPerSection: 10,
  fieldText: 2000,
  headerText: 150,
  buttonText: 75,
  buttonValue: 2000,
  buttonUrl: 3000,
  actionId: 255,
  blockId: 255,
  contextElements: 10,
  contextText: 3000,
  actionsElementsMax: 25,
  selectPlaceholder: 150,
  selectOptions: 100,
  overflowOptions: 5,
  optionText: 75,
  optionValue: 150,
  /** our own choice: five buttons per row reads well on a phone */
  actionsElements: 5,
  /** chat.postMessage `text`; Slack truncates at 40,000, we keep fallbacks short */
  fallbackText: 3000,
  /** modals: title, submit and close texts; blocks; private_metadata */
  modalTitle: 24,
  modalBlocks: 100,
  privateMetadata: 3000,
  /** an input block's label and hint */
  inputLabel: 2000,
  radioOptions: 10,
  plainTextInputMax: 3000,
  /**
   * all the text in one message's blocks. Not published: chat.postMessage has been seen to
   * refuse a message with `msg_blocks_too_long` from 11,341 characters of block text in all
   * (slackapi/bolt-js #2867; ~13,200 in #2509). We stay well below it; longer answers are paged.
   */
  messageBlockText: 10_000,
} as const;

/** every `text` string in the blocks: how slackapi/bolt-js #2867 measured what Slack refused */
export function blockTextLength(blocks: unknown): number {
  if (Array.isArray(blocks))
    return blocks.reduce((sum: number, item) => sum + blockTextLength(item), 0);
  if (typeof blocks !== "object" || blocks === null) return 0;
  let total = 0;
  for (const [key, value] of Object.entries(blocks)) {
    total += key === "text" && typeof value === "string" ? value.length : blockTextLength(value);
  }
  return total;
}

const ELLIPSIS = "…";

/**
 * Cuts `text` to at most `max` UTF-16 units (what Slack counts), ending in "…". Never splits a
 * surrogate pair or an `&amp;`-style entity, so an escaped string stays escaped.
 */
export function clampText(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return "";
  let cut = max - ELLIPSIS.length;
  if (cut <= 0) return ELLIPSIS.slice(0, max);
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  const amp = text.lastIndexOf("&", cut - 1);
  if (amp !== -1 && amp >= cut - 6 && !text.slice(amp, cut).includes(";")) cut = amp;
  const lt = text.lastIndexOf("<", cut - 1);
  if (lt !== -1 && !text.slice(lt, cut).includes(">")) cut = lt;
  return `${text.slice(0, cut)}${ELLIPSIS}`;
}

export function moreLabel(hidden: number): string {
  return `…and ${hidden} more`;
}

/** The first `max` items and how many were left out. */
export function clampList<T>(items: readonly T[], max: number): { shown: T[]; hidden: number } {
  if (items.length <= max) return { shown: [...items], hidden: 0 };
  return { shown: items.slice(0, Math.max(0, max)), hidden: items.length - Math.max(0, max) };
}

/**
 * Packs lines into as few texts of at most `maxChars` as possible, at most `maxChunks` of them;
 * lines that no longer fit are counted and announced with a visible "…and N more" line.
 */
export function packLines(
  lines: readonly string[],
  maxChars: number = LIMITS.sectionText,
  maxChunks = 10,
  unit = "more",
): string[] {
  const chunks: string[] = [];
  let current = "";
  let index = 0;
  const reserve = 40; // room for the "…and N more" line
  for (; index < lines.length; index++) {
    const line = clampText(lines[index]!, maxChars - reserve);
    const candidate = current === "" ? line : `${current}\n${line}`;
    if (candidate.length <= maxChars - reserve) {
      current = candidate;
      continue;
    }
    if (chunks.length + 1 >= maxChunks) break;
    chunks.push(current);
    current = line;
  }
  const hidden = lines.length - index;
  if (hidden > 0) {
    const tail = unit === "more" ? moreLabel(hidden) : `…and ${hidden} more ${unit}`;
    current = current === "" ? `_${tail}_` : `${current}\n_${tail}_`;
  }
  if (current !== "") chunks.push(current);
  return chunks;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Checks a message's blocks against Slack's limits and our own safety rules (no mass mention
 * left unescaped). Returns one line per violation; empty means Slack would accept it.
 */
export function checkSlackLimits(blocks: readonly KnownBlock[]): string[] {
  const problems: string[] = [];
  if (blocks.length > LIMITS.blocksPerMessage) {
    problems.push(`${blocks.length} blocks > ${LIMITS.blocksPerMessage}`);
  }
  const blockIds = new Set<string>();
  blocks.forEach((raw, index) => {
    const block = raw as unknown as Json;
    const at = `block ${index} (${String(block.type)})`;
    if (typeof block.block_id === "string") {
      if (blockIds.has(block.block_id)) problems.push(`${at}: duplicate block_id`);
      blockIds.add(block.block_id);
      if (block.block_id.length > LIMITS.blockId) problems.push(`${at}: block_id too long`);
    }
    switch (block.type) {
      case "header":
        checkText(block.text, LIMITS.headerText, `${at} text`, problems, "plain_text");
        break;
      case "section": {
        const fields = Array.isArray(block.fields) ? block.fields : undefined;
        if (block.text === undefined && fields === undefined) {
          problems.push(`${at}: needs text or fields`);
        }
        if (block.text !== undefined) {
          checkText(block.text, LIMITS.sectionText, `${at} text`, problems);
        }
        if (fields) {
          if (fields.length === 0 || fields.length > LIMITS.fieldsPerSection) {
            problems.push(`${at}: ${fields.length} fields (1..${LIMITS.fieldsPerSection})`);
          }
          fields.forEach((field, f) => {
            checkText(field, LIMITS.fieldText, `${at} field ${f}`, problems);
          });
        }
        if (block.accessory !== undefined) {
          checkElement(block.accessory, `${at} accessory`, problems, new Set());
        }
        break;
      }
      case "context": {
        const elements = Array.isArray(block.elements) ? block.elements : [];
        if (elements.length === 0 || elements.length > LIMITS.contextElements) {
          problems.push(`${at}: ${elements.length} elements (1..${LIMITS.contextElements})`);
        }
        elements.forEach((element, e) => {
          checkText(element, LIMITS.contextText, `${at} element ${e}`, problems);
        });
        break;
      }
      case "actions": {
        const elements = Array.isArray(block.elements) ? block.elements : [];
        if (elements.length === 0 || elements.length > LIMITS.actionsElementsMax) {
          problems.push(`${at}: ${elements.length} elements (1..${LIMITS.actionsElementsMax})`);
        }
        const actionIds = new Set<string>();
        elements.forEach((element, e) => {
          checkElement(element, `${at} element ${e}`, problems, actionIds);
        });
        break;
      }
      case "divider":
        break;
      case "input":
        checkText(block.label, LIMITS.inputLabel, `${at} label`, problems, "plain_text");
        if (block.hint !== undefined) {
          checkText(block.hint, LIMITS.inputLabel, `${at} hint`, problems, "plain_text");
        }
        checkInputElement(block.element, `${at} element`, problems);
        break;
      default:
        problems.push(`${at}: a block type our views do not produce`);
    }
  });
  return problems;
}

function checkText(
  value: unknown,
  max: number,
  at: string,
  problems: string[],
  only?: "plain_text",
): void {
  if (!isObject(value) || typeof value.text !== "string") {
    problems.push(`${at}: not a text object`);
    return;
  }
  if (value.type !== "plain_text" && value.type !== "mrkdwn") {
    problems.push(`${at}: unknown text type`);
  }
  if (only && value.type !== only) problems.push(`${at}: must be ${only}`);
  if (value.text.length === 0) problems.push(`${at}: empty text`);
  if (value.text.length > max) problems.push(`${at}: ${value.text.length} chars > ${max}`);
  if (value.type === "mrkdwn") {
    // one user or one channel by ID is what `mention`/`channelRef` write; `<!…>` pings many
    // …and a `<!date^…>` that `slackDate` writes is a time, not a ping
    const text = value.text.replace(
      /<@[UW][A-Z0-9]{2,}>|<#[CG][A-Z0-9]{2,}>|<!date\^\d+\^\{[a-z_]+\}( \{[a-z_]+\})?\|[0-9: UTC-]+>/g,
      "",
    );
    if (/<[!@#]/.test(text)) problems.push(`${at}: unescaped mention or channel link`);
    // our views make links only as <https://…|label>; any other `<` is text left unescaped
    else if (/<(?!(https?:\/\/|mailto:)[^<>\s]*(\|[^<>]*)?>)/.test(text)) {
      problems.push(`${at}: unescaped < (escape text with escapeMrkdwn)`);
    }
  }
}

function checkElement(value: unknown, at: string, problems: string[], ids: Set<string>): void {
  if (!isObject(value)) {
    problems.push(`${at}: not an element`);
    return;
  }
  if (value.type === "static_select" || value.type === "overflow") {
    checkSelect(value, at, problems, ids);
    return;
  }
  if (value.type !== "button") {
    problems.push(`${at}: an element type our views do not produce`);
    return;
  }
  checkText(value.text, LIMITS.buttonText, `${at} text`, problems, "plain_text");
  checkActionId(value, at, problems, ids);
  if (typeof value.value === "string" && value.value.length > LIMITS.buttonValue) {
    problems.push(`${at}: value ${value.value.length} chars > ${LIMITS.buttonValue}`);
  }
  if (typeof value.url === "string" && value.url.length > LIMITS.buttonUrl) {
    problems.push(`${at}: url too long`);
  }
  if (value.value === undefined && value.url === undefined) {
    problems.push(`${at}: button with neither value nor url`);
  }
}

/** Slack: a select's placeholder ≤ 150, ≤ 100 options, each text ≤ 75 and value ≤ 150 chars. */
function checkSelect(
  value: Record<string, unknown>,
  at: string,
  problems: string[],
  ids: Set<string>,
): void {
  // an overflow menu ("⋯") has no placeholder and at most five options
  const overflow = value.type === "overflow";
  if (!overflow) {
    checkText(
      value.placeholder,
      LIMITS.selectPlaceholder,
      `${at} placeholder`,
      problems,
      "plain_text",
    );
  }
  checkActionId(value, at, problems, ids);
  const options = value.options;
  const most = overflow ? LIMITS.overflowOptions : LIMITS.selectOptions;
  if (!Array.isArray(options) || options.length === 0 || options.length > most) {
    problems.push(`${at}: a ${overflow ? "menu" : "select"} needs 1 to ${most} options`);
    return;
  }
  options.forEach((option: unknown, o) => {
    if (!isObject(option)) {
      problems.push(`${at} option ${o}: not an option`);
      return;
    }
    checkText(option.text, LIMITS.optionText, `${at} option ${o} text`, problems, "plain_text");
    if (typeof option.value !== "string" || option.value.length > LIMITS.optionValue) {
      problems.push(`${at} option ${o}: value missing or > ${LIMITS.optionValue} chars`);
    }
  });
}

function checkActionId(
  value: Record<string, unknown>,
  at: string,
  problems: string[],
  ids: Set<string>,
): void {
  if (typeof value.action_id === "string") {
    if (ids.has(value.action_id)) problems.push(`${at}: duplicate action_id in block`);
    ids.add(value.action_id);
    if (value.action_id.length > LIMITS.actionId) problems.push(`${at}: action_id too long`);
  }
}

/** The input elements our modals use: radio buttons, a date picker, a text field, a select. */
function checkInputElement(value: unknown, at: string, problems: string[]): void {
  if (!isObject(value)) {
    problems.push(`${at}: not an element`);
    return;
  }
  const ids = new Set<string>();
  switch (value.type) {
    case "static_select":
      checkSelect(value, at, problems, ids);
      return;
    case "radio_buttons": {
      checkActionId(value, at, problems, ids);
      const options = Array.isArray(value.options) ? value.options : [];
      if (options.length === 0 || options.length > LIMITS.radioOptions) {
        problems.push(`${at}: radio buttons need 1 to ${LIMITS.radioOptions} options`);
      }
      options.forEach((option: unknown, o) => {
        const opt = isObject(option) ? option : {};
        checkText(opt.text, LIMITS.optionText, `${at} option ${o} text`, problems);
        if (typeof opt.value !== "string" || opt.value.length > LIMITS.optionValue) {
          problems.push(`${at} option ${o}: value missing or > ${LIMITS.optionValue} chars`);
        }
      });
      if (
        value.initial_option !== undefined &&
        !options.some((o) => JSON.stringify(o) === JSON.stringify(value.initial_option))
      ) {
        problems.push(`${at}: initial_option is not one of the options`);
      }
      return;
    }
    case "datepicker":
      checkActionId(value, at, problems, ids);
      if (value.placeholder !== undefined) {
        checkText(value.placeholder, LIMITS.selectPlaceholder, `${at} placeholder`, problems);
      }
      if (
        value.initial_date !== undefined &&
        !/^\d{4}-\d{2}-\d{2}$/.test(String(value.initial_date))
      ) {
        problems.push(`${at}: initial_date is not YYYY-MM-DD`);
      }
      return;
    case "plain_text_input":
      checkActionId(value, at, problems, ids);
      if (value.placeholder !== undefined) {
        checkText(value.placeholder, LIMITS.selectPlaceholder, `${at} placeholder`, problems);
      }
      if (
        value.max_length !== undefined &&
        (typeof value.max_length !== "number" || value.max_length > LIMITS.plainTextInputMax)
      ) {
        problems.push(`${at}: max_length above ${LIMITS.plainTextInputMax}`);
      }
      return;
    default:
      problems.push(`${at}: an input element type our views do not produce`);
  }
}

/**
 * A modal against Slack's limits: title, submit and close of at most 24 characters, at most
 * 100 blocks, private_metadata of at most 3,000, and its blocks as checkSlackLimits sees them.
 */
export function checkModalLimits(view: {
  title?: unknown;
  submit?: unknown;
  close?: unknown;
  callback_id?: unknown;
  private_metadata?: unknown;
  blocks: readonly unknown[];
}): string[] {
  const problems: string[] = [];
  checkText(view.title, LIMITS.modalTitle, "title", problems, "plain_text");
  if (view.submit !== undefined)
    checkText(view.submit, LIMITS.modalTitle, "submit", problems, "plain_text");
  if (view.close !== undefined)
    checkText(view.close, LIMITS.modalTitle, "close", problems, "plain_text");
  if (typeof view.callback_id === "string" && view.callback_id.length > LIMITS.actionId) {
    problems.push("callback_id too long");
  }
  if (
    typeof view.private_metadata === "string" &&
    view.private_metadata.length > LIMITS.privateMetadata
  ) {
    problems.push(
      `private_metadata ${view.private_metadata.length} chars > ${LIMITS.privateMetadata}`,
    );
  }
  if (view.blocks.length > LIMITS.modalBlocks) {
    problems.push(`${view.blocks.length} blocks > ${LIMITS.modalBlocks}`);
  }
  // the message limit of 50 blocks does not apply to a modal
  const blockProblems = checkSlackLimits(view.blocks as KnownBlock[]).filter(
    (problem) => !/^\d+ blocks > /.test(problem),
  );
  return [...problems, ...blockProblems];
}
