import type { Reply } from "../verb-kit/types.ts";

/**
 * Did a typed run of a message fail the way a question written in words does (issue 36 item 8)?
 * "why is web-prod unhealthy?" runs `why` on a cluster named `is`; "list the clusters that are not
 * healthy" gives `clusters` more tags than it takes. With the assistant on, such a message is a
 * question for it; a verb whose run answers (data, a refusal, an error from Palette) stays a verb.
 * Pure: the reply in, the verdict out.
 */
export function typedRunMissed(reply: Reply): boolean {
  if (reply.kind !== "message") return false;
  if (reply.view.screen === "usage") return true;
  // the resolver's miss (src/verb-kit/resolve.ts): its fallback text names it
  return reply.view.screen === "notice" && reply.text.startsWith("No cluster named ");
}

/**
 * Verbs whose words after the verb are only names, tags, namespaces or ranges: one of the small
 * words of a sentence there means the message is a sentence, not their grammar. (Not `mute`,
 * `freeze` and the like, which take a free-text reason.)
 */
const NAME_ONLY_VERBS = new Set([
  "clusters",
  "ls",
  "list",
  "cluster",
  "nodes",
  "node",
  "workloads",
  "workload",
  "alerts",
  "alert",
  "why",
  "timeline",
  "risks",
  "freezes",
  "logs",
]);

/** Verbs that end in a free-text reason. */
const REASON_VERBS = new Set(["mute", "freeze"]);

/** words of English sentences that are never a cluster, tag or namespace a person means */
const SENTENCE_WORDS = new Set(
  (
    "a an the is are was were be been am do does did have has had that which what who whom how " +
    "of for with about from into than not no any me my our your there their its it this these " +
    "those and or but show shows showing tell today yesterday now lately right please"
  ).split(" "),
);

/**
 * Does this parse of a message read as a sentence rather than the verb's grammar? ("why is
 * web-prod unhealthy?", "list the clusters that are not healthy", "alerts for prod today?")
 * Decided before anything is run, so a question never walks the fleet for a cluster named `is`.
 */
export function readsAsSentence(command: { verb: string; args: readonly string[] }): boolean {
  // a reason is free text, but one that ends in "?" asks ("mute web-prod 1d is that wise?"):
  // with the assistant on it is a question, and nothing is muted or frozen on it
  if (REASON_VERBS.has(command.verb)) return command.args.at(-1)?.endsWith("?") ?? false;
  if (!NAME_ONLY_VERBS.has(command.verb)) return false;
  return command.args.some(
    (arg) => arg.endsWith("?") || SENTENCE_WORDS.has(arg.toLowerCase().replace(/[?!.,]+$/, "")),
  );
}
