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

/** The words in a person's question that ask for each change (whole words, any case). */
const VERB_WORDS: ReadonlyArray<readonly [ChangeVerb, RegExp]> = [
  ["scale", /\b(scale|scaled|scaling|resize)\b/],
  ["delete", /\b(delete|deleting|remove|destroy)\b/],
  ["cordon", /\bcordon(ed|ing)?\b/],
  ["uncordon", /\buncordon(ed|ing)?\b/],
  ["repave", /\brepav(e|ed|ing)\b/],
  ["pause", /\bpaus(e|ed|ing)\b/],
  ["resume", /\bresum(e|ed|ing)\b/],
  ["backup", /\b(backup|back up|back-up)\b/],
  ["logs", /\b(logs?|log bundle)\b/],
  ["upgrade", /\bupgrad(e|ed|ing)\b/],
  ["renew", /\brenew(ed|ing|al)?\b/],
];

/** The change verbs the person's own words ask for; empty: they asked for none. */
export function changeVerbsAsked(question: string): Set<ChangeVerb> {
  const text = question.toLowerCase();
  return new Set(VERB_WORDS.filter(([, words]) => words.test(text)).map(([verb]) => verb));
}

/**
 * The clusters a read's data shows (names and UIDs, lower-case): a card, its nodes, workloads or
 * history, or a list. A notice ("No cluster named …", "Did you mean …"), usage or error shows
 * none: a miss is not a cluster the read returned.
 */
export function clustersReturned(reply: Reply): string[] {
  if (reply.kind !== "message") return [];
  const view = reply.view;
  const named = (name: string, uid: string) => [name.toLowerCase(), uid.toLowerCase()];
  switch (view.screen) {
    case "clusterCard":
      return named(view.data.card.name, view.data.card.uid);
    case "nodeTable":
    case "workloads":
      return named(view.data.clusterName, view.data.clusterUid);
    case "why":
      return named(view.data.cluster.name, view.data.cluster.uid);
    case "clusterList":
      return view.data.items.flatMap((item) => named(item.name, item.uid));
    case "clusterGroups":
      return view.data.groups.flatMap((group) =>
        group.items.flatMap((item) => named(item.name, item.uid)),
      );
    default:
      return [];
  }
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
