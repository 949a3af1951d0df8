import type { MessageReply, Requester } from "../commands/types.ts";
import { actingFor, cannotAct, personalRefusal } from "../identity/acting.ts";
import type { ChangeVerb } from "../model/change.ts";
import type { ChangeDeps } from "./types.ts";

/** What Palette is told the person wanted, in a refusal of their key ("… to scale in project p"). */
export const CHANGE_ACTION: Record<ChangeVerb, string> = {
  scale: "scale",
  delete: "delete clusters",
  cordon: "cordon machines",
  uncordon: "uncordon machines",
  repave: "approve repaves",
  pause: "pause clusters",
  resume: "resume clusters",
  backup: "back up clusters",
  logs: "collect logs",
  upgrade: "upgrade clusters",
};

export type Reads<T> = { kind: "read"; value: T } | { kind: "refused"; reply: MessageReply };

/**
 * Runs the reads of a person's change (asking, picking a pool or node, confirming, approving).
 * Under IDENTITY=linked|strict a person who cannot act in Palette is refused before anything is
 * read, and the refusal is audited; under strict the reads use the person's own key, so they
 * show only what the person's roles reach, and Palette's refusal of that key is told in their
 * name (a 401 unlinks it). Under linked the reads stay the service account's, as for other reads.
 */
export async function readsAs<T>(
  ask: { requester: Requester; verb: ChangeVerb; cluster: string; project: string | undefined },
  deps: ChangeDeps,
  read: (deps: ChangeDeps) => Promise<T>,
): Promise<Reads<T>> {
  const identity = deps.identity;
  if (!identity || identity.mode === "service") return { kind: "read", value: await read(deps) };
  const refused = async (reply: MessageReply): Promise<Reads<T>> => {
    await deps.audit.record({
      userId: ask.requester.userId,
      action: "change",
      target: `${ask.verb} ${ask.cluster}`.slice(0, 300),
      outcome: "denied",
      detail: JSON.stringify({ reason: "no Palette user to act as" }),
    });
    return { kind: "refused", reply };
  };
  if (identity.mode === "linked") {
    const unlinked = await cannotAct(ask.requester, identity);
    return unlinked ? refused(unlinked) : { kind: "read", value: await read(deps) };
  }
  const acting = await actingFor(ask.requester, identity);
  if (acting.kind === "refused") return refused(acting.reply);
  if (acting.kind === "service") return { kind: "read", value: await read(deps) };
  try {
    return { kind: "read", value: await read({ ...deps, palette: acting.palette }) };
  } catch (error) {
    const reply = await personalRefusal(
      error,
      acting.link,
      "see this cluster",
      ask.project,
      identity,
    );
    if (reply) return { kind: "refused", reply };
    throw error;
  } finally {
    await acting.palette.close();
  }
}

/** A refusal reply as the two lines a change's private notice carries. */
export function refusalLines(reply: MessageReply): { mrkdwn: string; text: string } {
  const view = reply.view;
  if (view.screen === "error") {
    const hint = view.data.hint ? `\n${view.data.hint}` : "";
    return { mrkdwn: `${view.data.mrkdwn}${hint}`, text: reply.text };
  }
  return { mrkdwn: reply.text, text: reply.text };
}
