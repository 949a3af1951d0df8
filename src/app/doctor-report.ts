/**
 * The doctor's table (`palette-chatops doctor`), pure: its lines in, the text and the exit code
 * out. A line that fails says what to do; the summary names every failing check, since an
 * operator reading a `helm test` log sees the last lines first.
 */

export type CheckStatus = "pass" | "warn" | "fail" | "skip";

export interface CheckLine {
  /** stable name of the check, e.g. `slack.auth` or `palette.project 5f…` */
  check: string;
  status: CheckStatus;
  /** what was found, one sentence */
  result: string;
  /** what to do about it (lines that did not pass) */
  fix?: string;
}

const WORDS: Record<CheckStatus, string> = {
  pass: "PASS",
  warn: "WARN",
  fail: "FAIL",
  skip: "SKIP",
};

/** A terminal gets the emoji too; a log or a pipe gets the words only, which grep finds. */
const EMOJI: Record<CheckStatus, string> = {
  pass: "✅",
  warn: "⚠️ ",
  fail: "❌",
  skip: "➖",
};

export interface Verdict {
  /** 0 when nothing failed: warnings and skipped checks do not stop the bot */
  exitCode: 0 | 1;
  failing: string[];
  warnings: number;
}

export function verdictOf(lines: readonly CheckLine[]): Verdict {
  const failing = lines.filter((line) => line.status === "fail").map((line) => line.check);
  return {
    exitCode: failing.length > 0 ? 1 : 0,
    failing,
    warnings: lines.filter((line) => line.status === "warn").length,
  };
}

/**
 * One line per check: status, check, what was found and (when it did not pass) what to do.
 * Line breaks inside a result are flattened: an answer from Slack or Palette cannot start a line
 * that looks like another check's.
 */
export function renderDoctor(lines: readonly CheckLine[], options: { tty: boolean }): string {
  const width = Math.max(5, ...lines.map((line) => line.check.length));
  // and no control character (a terminal escape in an answer) reaches the operator's terminal
  const flat = (text: string) =>
    text
      .replace(/\s*[\r\n]+\s*/g, " ")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
      .replace(/[\u0000-\u001f\u007f-\u009f]/g, "")
      .trim();
  const status = (value: CheckStatus) =>
    options.tty ? `${EMOJI[value]} ${WORDS[value]}` : WORDS[value];
  const statusWidth = options.tty ? 7 : 4;
  const out = [`${"".padEnd(statusWidth)}  ${"CHECK".padEnd(width)}  RESULT`];
  for (const line of lines) {
    // a skipped check's line says what it waits for; only a problem gets a remedy
    const problem = line.status === "fail" || line.status === "warn";
    const fix = line.fix && problem ? ` → ${flat(line.fix)}` : "";
    out.push(`${status(line.status)}  ${line.check.padEnd(width)}  ${flat(line.result)}${fix}`);
  }
  const verdict = verdictOf(lines);
  const warned = verdict.warnings === 1 ? "1 warning" : `${verdict.warnings} warnings`;
  out.push(
    verdict.exitCode === 0
      ? `The bot can run (${warned}).`
      : `The bot cannot run as configured: ${verdict.failing.join(", ")} failed (${warned}).`,
  );
  return `${out.join("\n")}\n`;
}
