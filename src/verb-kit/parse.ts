import type { ParsedCommand } from "./types.ts";

/**
 * The `/palette` grammar: `verb arg "quoted arg" 'quoted' project:<uid> tag:<t> --flag`.
 * Parsing is total: any string gives a command plus a list of problems to tell the user.
 */

/** Longer texts are refused with a clear answer rather than searched for. */
export const MAX_COMMAND_LENGTH = 1000;

// C0 controls except tab/newline/CR (whitespace), DEL, and C1 controls
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const PROJECT_UID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** Quote pairs; Slack clients turn "…" into curly quotes, which we honour too. */
const CLOSERS: Record<string, string> = {
  '"': '"',
  "'": "'",
  "“": "”",
  "”": "”",
  "‘": "’",
};

export interface ParseResult {
  command: ParsedCommand;
  /** mrkdwn-free sentences; empty when the text was understood */
  problems: string[];
}

interface Token {
  text: string;
  /** the token began with a quote: it is a literal value, never an option or flag */
  literal: boolean;
}

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let current = "";
  let inToken = false;
  let literal = false;
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    if (/\s/.test(char)) {
      if (inToken) tokens.push({ text: current, literal });
      current = "";
      inToken = false;
      literal = false;
      index++;
      continue;
    }
    const closer = CLOSERS[char];
    if (closer !== undefined) {
      if (!inToken) literal = true;
      inToken = true;
      const end = text.indexOf(closer, index + 1);
      // an unbalanced quote takes the rest of the text as one value
      const stop = end === -1 ? text.length : end;
      current += text.slice(index + 1, stop);
      index = end === -1 ? text.length : end + 1;
      continue;
    }
    inToken = true;
    current += char;
    index++;
  }
  if (inToken) tokens.push({ text: current, literal });
  return tokens;
}

export function parseCommand(text: string): ParseResult {
  const raw = text.trim();
  const problems: string[] = [];
  const command: ParsedCommand = { verb: "help", args: [], tags: [], flags: new Set(), raw };
  if (raw.length > MAX_COMMAND_LENGTH) {
    problems.push(
      `That command is ${raw.length} characters long; /palette commands are at most ${MAX_COMMAND_LENGTH}.`,
    );
    return { command, problems };
  }
  if (CONTROL.test(raw)) {
    problems.push(
      "That command contains control characters (invisible bytes, often from a copy-paste); type it again as plain text.",
    );
    return { command, problems };
  }
  let verb: string | undefined;
  for (const token of tokenize(raw)) {
    if (!token.literal) {
      const option = /^(project|tag):(.*)$/is.exec(token.text);
      if (option) {
        const key = option[1]!.toLowerCase();
        const value = option[2]!.trim();
        if (key === "project") {
          if (value === "")
            problems.push(
              "`project:` needs a project UID right after the colon, e.g. `project:5f2b0c3e…`.",
            );
          else if (!PROJECT_UID.test(value))
            problems.push("`project:` wants a project UID (letters, digits, `-`, `_`, `.`).");
          else if (command.project !== undefined && command.project !== value)
            problems.push("Give `project:` once.");
          else command.project = value;
        } else if (value === "") {
          problems.push(
            "`tag:` needs a tag right after the colon, e.g. `tag:env` or `tag:team:core`.",
          );
        } else {
          command.tags.push(value);
        }
        continue;
      }
      if (token.text.startsWith("--") && token.text.length > 2) {
        // the name is case-insensitive; a value after `=` (a page token) is kept as typed
        const flag = token.text.slice(2);
        const equals = flag.indexOf("=");
        command.flags.add(
          equals === -1
            ? flag.toLowerCase()
            : `${flag.slice(0, equals).toLowerCase()}${flag.slice(equals)}`,
        );
        continue;
      }
      if (token.text === "--") continue;
    }
    if (verb === undefined) {
      verb = token.text.toLowerCase();
      continue;
    }
    command.args.push(token.text);
  }
  command.verb = verb ?? "help";
  return { command, problems };
}

export function parse(text: string): ParsedCommand {
  return parseCommand(text).command;
}

/** `--name=value` flags carry a value (e.g. the page token of `--page=…`). */
export function flagValue(command: ParsedCommand, name: string): string | undefined {
  for (const flag of command.flags) {
    if (flag.startsWith(`${name}=`)) return flag.slice(name.length + 1);
  }
  return undefined;
}

/** Levenshtein distance, for "did you mean". */
export function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!;
      previous[j] = Math.min(
        above + 1,
        previous[j - 1]! + 1,
        diagonal + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      diagonal = above;
    }
  }
  return previous[b.length]!;
}

/** The closest known word if it is close enough to be a typo. */
export function suggest(word: string, known: readonly string[]): string | undefined {
  if (word.length === 0 || word.length > 40) return undefined;
  if (word.length >= 3) {
    const prefixed = known.find((name) => name.startsWith(word));
    if (prefixed) return prefixed;
  }
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(word, name);
    if (!best || distance < best.distance) best = { name, distance };
  }
  if (!best) return undefined;
  const allowed = Math.max(1, Math.min(3, Math.floor(best.name.length / 3)));
  return best.distance <= allowed ? best.name : undefined;
}
