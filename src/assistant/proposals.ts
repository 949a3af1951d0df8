import type { AccessPolicy } from "../access/types.ts";
import { cannotAct } from "../identity/acting.ts";
import { CHANGE_PERMISSION, type ChangeVerb } from "../model/change.ts";
import type { IdentityDeps } from "../verb-kit/identity-deps.ts";
import type { Reply, Requester } from "../verb-kit/types.ts";

/**
 * What the assistant may offer as a change (issue 36 item 6). The model's `propose_change` is
 * only a wish: code decides, from what the person typed and what this question read, whether a
 * button may stand under the answer. The button still only opens the usual confirmation, where
 * every guard applies again; this keeps a planted or injected proposal from being put in front
 * of anyone at all.
 */

/** Verbs whose button is never offered unless ASSISTANT_PROPOSE_DANGEROUS=true. */
export const DANGEROUS_PROPOSALS: ReadonlySet<ChangeVerb> = new Set(["delete", "upgrade"]);

/** The base form of each change verb (whole words, any case): "scale", never "scaled". */
const VERB_WORDS: ReadonlyArray<readonly [ChangeVerb, string]> = [
  ["scale", "scale|resize"],
  ["delete", "delete|remove|destroy"],
  ["cordon", "cordon"],
  ["uncordon", "uncordon"],
  ["repave", "repave"],
  ["pause", "pause"],
  ["resume", "resume"],
  ["backup", "backup|back up|back-up"],
  ["logs", "logs?|log bundle"],
  ["upgrade", "upgrade"],
  ["renew", "renew"],
];

/**
 * Where a request may stand: the start of the question or a clause, or after words that ask
 * ("please", "can you", "I want to"). "why was web-prod scaled down?" asks for nothing, and
 * neither does "what would scale do?": only the imperative asks.
 */
const ASKING =
  "(?:^|[.!?;:,]\\s*|\\b(?:and|then|also|please|pls|can you|could you|would you|will you|kindly|i want to|i'd like to|i would like to|i need to|let's|lets|go ahead and|help me)\\s+)(?:please\\s+|just\\s+|now\\s+)?";

/** The change verbs the person's own words ask for, in the imperative; empty: they asked for none. */
export function changeVerbsAsked(question: string): Set<ChangeVerb> {
  const text = question
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .trim();
  return new Set(
    VERB_WORDS.filter(([, words]) => new RegExp(`${ASKING}(?:${words})\\b`).test(text)).map(
      ([verb]) => verb,
    ),
  );
}

/**
 * The numbers a proposal may carry: only those the person typed (a size of 0 the model chose is
 * not the person's).
 */
export function numbersSaid(question: string): Set<string> {
  return new Set(question.match(/\b\d+\b/g) ?? []);
}

/** The whole words of the person's question, lower-case: the clusters they named themselves. */
export function wordsSaid(question: string): Set<string> {
  return new Set(
    (question.toLowerCase().match(/[a-z0-9][a-z0-9._-]*[a-z0-9]|[a-z0-9]/g) ?? []).map((word) =>
      word.replace(/[.]+$/, ""),
    ),
  );
}

/**
 * The clusters a read's data shows (names and UIDs, lower-case): a card, its nodes, workloads or
 * history, or a list. A notice ("No cluster named …", "Did you mean …"), usage or error shows
 * none: a miss is not a cluster the read returned.
 */
export function clustersReturned(reply: Reply): string[] {
  return clustersRead(reply).flatMap((read) => [read.name.toLowerCase(), read.uid.toLowerCase()]);
}

/** A cluster a read returned, and whether that read was about it alone (not a list). */
export interface ClusterRead {
  name: string;
  uid: string;
  single: boolean;
}

/** {@link clustersReturned}, with each cluster's UID and whether its read was about it alone. */
export function clustersRead(reply: Reply): ClusterRead[] {
  if (reply.kind !== "message") return [];
  const view = reply.view;
  const one = (name: string, uid: string) => [{ name, uid, single: true }];
  switch (view.screen) {
    case "clusterCard":
      return one(view.data.card.name, view.data.card.uid);
    case "nodeTable":
    case "workloads":
      return one(view.data.clusterName, view.data.clusterUid);
    case "why":
      return one(view.data.cluster.name, view.data.cluster.uid);
    case "clusterList":
      return view.data.items.map((item) => ({ name: item.name, uid: item.uid, single: false }));
    case "clusterGroups":
      return view.data.groups.flatMap((group) =>
        group.items.map((item) => ({ name: item.name, uid: item.uid, single: false })),
      );
    default:
      return [];
  }
}

/**
 * The cluster a proposal may be for, by its UID: one a read of this question returned, named in
 * the person's own words or read on its own (a card, its nodes, its workloads, its history), never
 * one that merely appeared in a list. Undefined when there is none, or the name is ambiguous.
 */
export function proposableUid(
  cluster: string,
  reads: readonly ClusterRead[],
  said: ReadonlySet<string>,
): string | undefined {
  const wanted = cluster.trim().toLowerCase();
  const matches = reads.filter(
    (read) =>
      (read.uid.toLowerCase() === wanted || read.name.toLowerCase() === wanted) &&
      (read.single || said.has(read.name.toLowerCase()) || said.has(read.uid.toLowerCase())),
  );
  const uids = new Set(matches.map((read) => read.uid));
  return uids.size === 1 ? [...uids][0] : undefined;
}

export interface ProposalRules {
  verb: ChangeVerb;
  cluster: string;
  /** changeVerbsAsked of the person's question */
  asked: ReadonlySet<ChangeVerb>;
  /** clustersReturned by this question's reads */
  returned: ReadonlySet<string>;
  /** ASSISTANT_PROPOSE_DANGEROUS */
  dangerous: boolean;
}

/** Why this proposal may not be offered (told to the model), or undefined when it may. Pure. */
export function proposalRuleRefusal(rules: ProposalRules): string | undefined {
  if (!rules.asked.has(rules.verb)) {
    return `The person did not ask to ${rules.verb} anything: offer no change they did not ask for.`;
  }
  if (DANGEROUS_PROPOSALS.has(rules.verb) && !rules.dangerous) {
    return `A ${rules.verb} is not offered by the assistant (ASSISTANT_PROPOSE_DANGEROUS is off): the person can type the command.`;
  }
  if (!rules.returned.has(rules.cluster.toLowerCase())) {
    return "Only a cluster a read of this question returned can have a change offered: read it first.";
  }
  return undefined;
}

/**
 * Whether the person could make this change at all: the verb's ALLOW_* list, and under
 * IDENTITY=linked|strict a Palette identity to act as. The same checks the typed verb's
 * confirmation makes, asked before a button is shown rather than after it is clicked.
 */
export async function personRefusal(
  deps: { policy: AccessPolicy; identity?: IdentityDeps | undefined },
  requester: Requester,
  verb: ChangeVerb,
): Promise<string | undefined> {
  if (!(await deps.policy.allows(requester.userId, CHANGE_PERMISSION[verb]))) {
    return `The person may not ${verb} clusters: offer no such change.`;
  }
  if (await cannotAct(requester, deps.identity)) {
    return "The person cannot act in Palette (not linked): offer no change.";
  }
  return undefined;
}
