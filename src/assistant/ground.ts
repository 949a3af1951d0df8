/**
 * Grounding by code, not by prompt (issue 33): every cluster name or UID an answer shows must
 * appear in the text of a read of that conversation. Pure functions: the answer and what was read
 * in, the names that were not read out.
 *
 * What counts as a name: whatever the answer puts in `code` or *bold* (the prompt asks for cluster
 * names in backticks, and the views show them bold), every Palette UID (24 hex digits) anywhere,
 * and any name of a cluster the bot knows of (its last poll) anywhere in the text, so a real
 * cluster the model was not shown cannot slip through as plain prose.
 */

const UID = /\b[0-9a-f]{24}\b/g;
const CODE = /`([^`\n]{1,200})`/g;
const BOLD = /\*\*?([^*\n]{1,200})\*\*?/g;
/** a word that could be a name: letters or digits with `-`, `.` or `_` inside */
const WORD = /[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]|[A-Za-z0-9]/g;

/** Words inside code that are the grammar of a command, not a name. */
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
]);

export interface GroundingInput {
  answer: string;
  /** the text of every read of the conversation (this question's and earlier ones') */
  readText: string;
  /** the clusters the bot knows of by name (its last poll); empty when it has none */
  knownNames?: readonly string[];
}

/** Names in the answer that no read returned; empty = grounded. */
export function ungroundedNames(input: GroundingInput): string[] {
  const read = input.readText;
  const readLower = read.toLowerCase();
  const found = new Set<string>();
  const check = (word: string) => {
    if (word.length < 3 || GRAMMAR.has(word.toLowerCase())) return;
    // numbers, sizes and times are not names ("3", "1.29", "24h")
    if (/^[0-9.]+[a-z]{0,2}$/i.test(word)) return;
    if (word.includes(":")) return;
    if (!readLower.includes(word.toLowerCase())) found.add(word);
  };
  for (const match of input.answer.matchAll(UID)) {
    if (!read.includes(match[0])) found.add(match[0]);
  }
  for (const pattern of [CODE, BOLD]) {
    for (const match of input.answer.matchAll(pattern)) {
      for (const word of (match[1] ?? "").matchAll(WORD)) check(word[0]);
    }
  }
  for (const name of input.knownNames ?? []) {
    if (name.length < 3 || GRAMMAR.has(name.toLowerCase())) continue;
    const pattern = new RegExp(`(^|[^A-Za-z0-9._-])${escapeRegExp(name)}($|[^A-Za-z0-9_-])`, "i");
    if (pattern.test(input.answer) && !readLower.includes(name.toLowerCase())) found.add(name);
  }
  return [...found].slice(0, 10);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
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
