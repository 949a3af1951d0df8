/**
 * Which lines of an answer being written may be shown yet (issue 36). The model's text arrives in
 * pieces; a line is shown once it is whole and passes the grounding check. Each new line is
 * checked alone (the cost is the line's, not the answer's so far). A line that fails is held, and
 * so is everything after it (the answer is read in order); held lines are checked again when
 * more was read or more was written, so a line a later read grounds is shown then, not never.
 * Pure apart from the check it is given.
 */

/** a piece of the answer as it may be shown (links kept or taken out), or undefined: hold it */
export type LineCheck = (line: string) => string | undefined;

export class LineGate {
  private text = "";
  /** the part of `text` already split into lines */
  private consumed = 0;
  /** the lines cleared to show, as shown */
  private shownLines: string[] = [];
  /** whole lines written but not shown yet (the first of them failed its check) */
  private held: string[] = [];

  constructor(private readonly check: LineCheck) {}

  /** the answer so far as it may be shown */
  get shown(): string {
    return this.shownLines.join("\n");
  }

  get holding(): boolean {
    return this.held.length > 0;
  }

  /** Adds a piece of the answer; true when more of it may be shown now. */
  push(delta: string): boolean {
    this.text += delta;
    const end = this.text.lastIndexOf("\n");
    if (end < this.consumed) return false;
    const lines = this.text.slice(this.consumed, end).split("\n");
    this.consumed = end + 1;
    this.held.push(...lines);
    return this.release();
  }

  /** Reads grounded more: checks the held lines again. True when more may be shown. */
  recheck(): boolean {
    return this.release();
  }

  /** the whole answer written, for the final check */
  get written(): string {
    return this.text;
  }

  private release(): boolean {
    let released = false;
    while (this.held.length > 0) {
      const passed = this.check(this.held[0]!);
      if (passed === undefined) break;
      this.shownLines.push(passed);
      this.held.shift();
      released = true;
    }
    return released;
  }
}
