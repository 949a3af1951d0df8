/**
 * Grounding by code, not by prompt (issues 33 and 36): every cluster name or UID an answer shows
 * must be a whole token of the *data* a read of this question returned. Pure functions.
 *
 * - Grounds are built from a read's data (src/assistant/reads.ts `readResult`), never from a
 *   notice, a usage line or a "did you mean": a miss is a typed refusal and grounds nothing.
 * - Matching is by whole token against Sets (lower-cased, so an upper-case UID is the same UID):
 *   `web-prod-2` is not grounded by a read of `web-prod-20`.
 * - What is checked: every name-shaped token (it has `-`, `.` or a digit), every word in `code` or
 *   *bold*, every Palette UID, and every word that is a cluster name the bot knows of (its last
 *   poll). The cost is a few Set look-ups per token of the answer, whatever the fleet's size.
 * - Links stay only when they are the console's or a read returned them; a claim of having
 *   changed something ("Done: I scaled …") is refused: the assistant cannot change anything.
 */

const UID = /^[0-9a-f]{24}$/i;
/** a word that could be a name: letters or digits with `-`, `.` or `_` inside */
const WORD = /[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]|[A-Za-z0-9]/g;
const CODE = /`([^`\n]{1,200})`/g;
const BOLD = /\*\*?([^*\n]{1,200})\*\*?/g;
const URL = /https?:\/\/[^\s<>|)\]`'"]+/gi;
/** numbers, sizes, versions, times and dates are not names ("3", "1.29.3", "v1.29", "24h", "2026-11-28") */
const NUMBER_LIKE = /^(v?[0-9][0-9.]*[a-z]{0,3}|\d{4}-\d{2}-\d{2}(t[0-9.]+z?)?|[0-9]+(-[0-9]+)+)$/i;
/** words with a dash, dot or digit that are English or Kubernetes, not names */
const COMMON = new Set([
  "e.g",
  "i.e",
  "etc",
  "k8s",
  "k3s",
  "arm64",
  "amd64",
  "x86_64",
  "ipv4",
  "ipv6",
  "utf-8",
  "e-mail",
  "up-to-date",
  "out-of-date",
  "follow-up",
  "read-only",
  "built-in",
  "re-run",
  "non-zero",
  "on-call",
  "end-to-end",
  "day-2",
  "cert-manager",
]);
/** words inside code that are the grammar of a command, not a name */
const GRAMMAR = new Set([
  "clusters",
  "cluster",
  "nodes",
  "workloads",
  "alerts",
  "why",
  "risks",
  "freezes",
  "since",
  "scale",
  "delete",
  "cordon",
  "uncordon",
  "repave",
  "approve",
  "pause",
  "resume",
  "backup",
  "logs",
  "upgrade",
  "renew",
  "certificates",
  "help",
  "running",
  "healthy",
  "unhealthy",
  "pending",
  "deleting",
  "provisioning",
  "unknown",
  "project",
  "tag",
]);

/**
 * "Done: I scaled …", "I have deleted …", "✅ cordoned": the words of a change made. The bot's
 * assistant cannot make one (a proposal is a button), so such an answer is false by construction.
 */
const CHANGE_CLAIM =
  /(^|\n)\s*[*_>•-]*\s*(done|completed|success(fully)?)\b\s*[:!.,-]|\b(i|i've|i have|we|we've|we have)\s+(now\s+|just\s+|already\s+|successfully\s+)*(scaled|deleted|cordoned|uncordoned|drained|repaved|paused|resumed|backed up|upgraded|renewed|restarted|rebooted|applied|changed|approved|removed|created|launched)\b|\b(has|have)\s+been\s+(scaled|deleted|cordoned|uncordoned|repaved|paused|resumed|upgraded|renewed|restarted)\s+(by me|for you)\b/i;

/** the past tense of the changes the bot can make (and a few a model may claim besides) */
const CHANGED =
  /\b(scaled|deleted|cordoned|uncordoned|drained|repaved|paused|resumed|upgraded|backed\s+up|renewed|restarted|rebooted|rolled\s+back|froze|frozen|unfroze|muted)\b/i;
/** words that make a past-tense change the assistant's own doing */
const DONE_BY_ME =
  /\b(for you|by me|on your behalf|went ahead|as (you )?(asked|requested))\b|\b(now|just)\s+(been\s+)?\w+ed\b|✅|:white_check_mark:|:heavy_check_mark:/i;
/**
 * words that make it a report of what happened (a `why` answer): a passive or a state ("was
 * scaled", "is paused"), an agent ("by alice@…", "by its autoscaler") or a time ("yesterday")
 */
const REPORTED =
  /\b(was|were|has been|have been|had been|had|is|are|got|be|being)\s+(\w+ly\s+|last\s+|already\s+)?(scaled|deleted|cordoned|uncordoned|drained|repaved|paused|resumed|upgraded|backed\s+up|renewed|restarted|rebooted|rolled\s+back|frozen|muted)\b|\bby\s+(?!me\b)\S+|\b(yesterday|ago|earlier|last (night|week|month)|since|on \d|at \d)\b/i;

/**
 * A line that says a change was made without an "I" ("Scaled `x` to 5 for you.", "`x` is now
 * scaled", "✅ `x` scaled to 5", "I went ahead and deleted `x`"). A line quoted from a read
 * (`>`) is the read's, not the assistant's; a report of history ("was scaled by alice
 * yesterday") is what a `why` answer is for.
 */
function claimsChangeInLine(line: string): boolean {
  if (/^\s*>/.test(line) || !CHANGED.test(line)) return false;
  if (DONE_BY_ME.test(line)) return true;
  return !REPORTED.test(line);
}

/** Smart quotes folded to plain ones, so "I’ve scaled" reads as "I've scaled". */
function foldQuotes(text: string): string {
  return text.replace(/[\u2018\u2019\u02BC]/g, "'").replace(/[\u201C\u201D]/g, '"');
}

/** Does the answer say that it (or the bot) changed something? */
export function claimsChange(text: string): boolean {
  const folded = foldQuotes(text);
  const unquoted = folded
    .split("\n")
    .filter((line) => !/^\s*>/.test(line))
    .join("\n");
  return CHANGE_CLAIM.test(unquoted) || folded.split("\n").some(claimsChangeInLine);
}

/** What the reads of a question returned, as whole tokens (lower-cased) and links. */
export interface Grounds {
  /** the tokens of the reads' data: the only grounds for a name or a UID */
  readonly tokens: ReadonlySet<string>;
  /** the words the model was shown of those reads (a card's labels too): grounds for a plain word */
  readonly words: ReadonlySet<string>;
  readonly links: ReadonlySet<string>;
}

/** An empty Grounds to add reads' data to as they come in. */
export function emptyGrounds(): { tokens: Set<string>; words: Set<string>; links: Set<string> } {
  return { tokens: new Set(), words: new Set(), links: new Set() };
}

/** Adds the tokens and links of one piece of a read's data. */
export function addGrounds(
  into: { tokens: Set<string>; words: Set<string>; links: Set<string> },
  text: string,
): void {
  for (const match of text.matchAll(URL)) into.links.add(trimUrl(match[0]));
  for (const match of text.replace(URL, " ").matchAll(WORD))
    into.tokens.add(match[0].toLowerCase());
}

/**
 * The grounds of reads' data as text to store with a turn, one token or link a line, each once:
 * what a follow-up may be grounded by, and nothing of the text around it.
 */
export function groundLines(data: Iterable<string>): string {
  const into = emptyGrounds();
  for (const piece of data) addGrounds(into, piece);
  return [...into.links, ...into.tokens].join("\n");
}

/**
 * The clusters the bot knows by name, lower-cased, built once per poll (the caller keeps it until
 * the poll's stamp moves): looking a token up is one Set probe, at 50 or at 50,000 clusters.
 */
export class KnownNames {
  private names: ReadonlySet<string>;

  constructor(names: Iterable<string>) {
    const set = new Set<string>();
    KnownNames.addTo(set, names);
    this.names = set;
  }

  /** adds names to a Set being built a piece at a time (see known-names.ts), lower-cased */
  static addTo(set: Set<string>, names: Iterable<string>): void {
    for (const name of names) {
      const lower = name.toLowerCase();
      if (lower.length >= 3 && !GRAMMAR.has(lower)) set.add(lower);
    }
  }

  /** a Set built with {@link KnownNames.addTo}, taken as it is (no second pass over the fleet) */
  static fromBuilt(set: Set<string>): KnownNames {
    const known = new KnownNames([]);
    (known as unknown as { names: Set<string> }).names = set;
    return known;
  }

  has(lowerToken: string): boolean {
    return this.names.has(lowerToken);
  }

  get size(): number {
    return this.names.size;
  }

  static readonly none = new KnownNames([]);
}

export interface GroundingCheck {
  /** names and UIDs the answer shows that no read returned (at most 10) */
  names: string[];
  /** the answer says it changed something */
  claimsChange: boolean;
}

function trimUrl(url: string): string {
  return url.replace(/[.,;:!?]+$/, "");
}

/**
 * Every word of `text` that must be grounded, once each: "name" for a name or a UID (grounded
 * only by data), "word" for a plain word the answer marks in code or bold (grounded by what the
 * model was shown, so a card's "*State*" label passes but an invented `billing` does not).
 */
function wordsToCheck(text: string, known: KnownNames): Map<string, "name" | "word"> {
  const marked = new Set<string>();
  for (const pattern of [CODE, BOLD]) {
    for (const match of text.matchAll(pattern)) {
      for (const word of (match[1] ?? "").matchAll(WORD)) marked.add(word[0]);
    }
  }
  const out = new Map<string, "name" | "word">();
  for (const match of text.matchAll(WORD)) {
    const word = match[0];
    const lower = word.toLowerCase();
    if (UID.test(word)) {
      out.set(word, "name");
      continue;
    }
    if (word.length < 3 || GRAMMAR.has(lower) || COMMON.has(lower)) continue;
    if (NUMBER_LIKE.test(word)) continue;
    if (/[-.\d]/.test(word) || known.has(lower)) out.set(word, "name");
    else if (marked.has(word)) out.set(word, "word");
  }
  return out;
}

/**
 * Checks one piece of an answer (a streamed line, or the whole answer at the end) against what
 * was read. Links are expected to be taken out first ({@link keepGroundedLinks}).
 */
export function checkGrounding(text: string, grounds: Grounds, known: KnownNames): GroundingCheck {
  const names: string[] = [];
  for (const [word, kind] of wordsToCheck(text.replace(URL, " "), known)) {
    const lower = word.toLowerCase();
    const grounded = grounds.tokens.has(lower) || (kind === "word" && grounds.words.has(lower));
    if (!grounded) names.push(word);
    if (names.length >= 10) break;
  }
  return { names, claimsChange: claimsChange(text) };
}

/**
 * The answer with every link that is neither the console's nor one a read returned replaced by
 * a note: a model cannot send a person to a page no data pointed at.
 */
export function keepGroundedLinks(text: string, grounds: Grounds, consoleUrl: string): string {
  let consoleOrigin = "";
  try {
    consoleOrigin = new globalThis.URL(consoleUrl).origin.toLowerCase();
  } catch {
    // no console link is kept when the setting is not a URL
  }
  return text.replace(URL, (raw) => {
    const url = trimUrl(raw);
    const rest = raw.slice(url.length);
    let origin = "";
    try {
      origin = new globalThis.URL(url).origin.toLowerCase();
    } catch {
      return `(link removed)${rest}`;
    }
    if ((consoleOrigin !== "" && origin === consoleOrigin) || grounds.links.has(url)) return raw;
    return `(link removed: no read returned it)${rest}`;
  });
}

/**
 * The typed commands that answer a question like this one, for when the assistant cannot (the
 * model is down, slow, or answered with a tool call the bot could not read).
 */
export function typedCommandsFor(question: string): string[] {
  const text = question.toLowerCase();
  const out: string[] = [];
  if (/\bnodes?\b|machine|cordon/.test(text)) out.push("nodes <cluster>");
  if (/workload|pod|deployment|namespace/.test(text)) out.push("workloads <cluster>");
  if (/why|event|happen|changed|timeline|history/.test(text)) out.push("why <cluster>");
  if (/alert|fir|pag/.test(text)) out.push("alerts");
  if (/risk|cert|expir|backup|repave/.test(text)) out.push("risks");
  if (/freeze|frozen/.test(text)) out.push("freezes");
  if (out.length === 0 || /cluster|health|unhealthy|fleet|how many|list/.test(text)) {
    out.unshift("clusters", "cluster <name>");
  }
  return [...new Set(out)].slice(0, 4);
}

/** The verdict on a whole answer: the text to show, or why it may not be shown. */
export type AnswerVerdict =
  | { ok: true; text: string }
  | { ok: false; names: string[]; claimsChange: boolean };

/**
 * One question's grounding: the Sets it checks against grow as its reads come in (and start with
 * the asker's earlier reads of the conversation); lines and the final answer are checked here.
 */
export class AnswerGrounding {
  private readonly grounds = emptyGrounds();

  constructor(
    private readonly known: KnownNames,
    private readonly consoleUrl: string,
  ) {}

  /** a read's data (or an earlier turn's stored data text) */
  add(data: Iterable<string>): void {
    for (const piece of data) addGrounds(this.grounds, piece);
  }

  /** the text the model was shown of a data read: its plain words ground plain words only */
  addShown(text: string): void {
    for (const match of text.replace(URL, " ").matchAll(WORD)) {
      this.grounds.words.add(match[0].toLowerCase());
    }
  }

  /** one line as it may be shown, or undefined to hold it */
  line(text: string): string | undefined {
    const verdict = this.answer(text);
    return verdict.ok ? verdict.text : undefined;
  }

  answer(text: string): AnswerVerdict {
    const kept = keepGroundedLinks(text, this.grounds, this.consoleUrl);
    const check = checkGrounding(kept, this.grounds, this.known);
    if (check.names.length > 0 || check.claimsChange) {
      return { ok: false, names: check.names, claimsChange: check.claimsChange };
    }
    return { ok: true, text: kept };
  }
}
