import { actingFor, cannotAct, personalRefusalLines } from "../identity/acting.ts";
import type { ChangeVerb } from "../model/change.ts";
import { PaletteError } from "../palette/errors.ts";
import type { IdentityLink } from "../store/identities.ts";
import { errorReply } from "../verb-kit/reply.ts";
import type { MessageReply, Requester } from "../verb-kit/types.ts";
import { code, escapeMrkdwn, mention } from "../views/mrkdwn.ts";
import type { ChangeDeps } from "./types.ts";

/** What Palette is told the person wanted, in a refusal of their key ("… to scale in project p"). */
export const CHANGE_ACTION: Record<ChangeVerb, string> = {
  scale: "scale",
  delete: "delete clusters",
  cordon: "cordon machines",
  uncordon: "uncordon machines",
  repave: "approve repaves",
  renew: "renew certificates",
  pause: "pause clusters",
  resume: "resume clusters",
  backup: "back up clusters",
  logs: "collect logs",
  upgrade: "upgrade clusters",
};

export type Reads<T> =
  | { kind: "read"; value: T }
  /**
   * `reply`: for the reader; `reason`: plain, a card's line (the requester's own when they read
   * it); `forRequester`: the requester's line when the reader is someone else and it differs
   */
  | { kind: "refused"; reply: MessageReply; reason: string; forRequester?: string };

/**
 * Runs the reads of a person's change (asking, picking a pool or node, confirming, approving).
 * Under IDENTITY=linked|strict a person who cannot act in Palette is refused before anything is
 * read, and the refusal is audited; under strict the reads use the person's own key, so they
 * show only what the person's roles reach, and Palette's refusal of that key is told in their
 * name (a 401 unlinks it). Under linked the reads stay the service account's, as for other reads.
 */
export async function readsAs<T>(
  ask: {
    requester: Requester;
    verb: ChangeVerb;
    cluster: string;
    project: string | undefined;
    /** who reads a refusal: the requester (default), or a second person approving their request */
    reader?: "requester" | "approver";
    /** false: the caller writes the refusal's audit row itself (the confirmation's checks do) */
    audit?: boolean;
  },
  deps: ChangeDeps,
  read: (deps: ChangeDeps) => Promise<T>,
): Promise<Reads<T>> {
  const identity = deps.identity;
  if (!identity || identity.mode === "service") return { kind: "read", value: await read(deps) };
  const refused = async (reply: MessageReply): Promise<Reads<T>> => {
    if (ask.audit !== false) await auditRefusal();
    return {
      kind: "refused",
      reply: ask.reader === "approver" ? requesterCannotAct(ask.requester.userId) : reply,
      reason: reply.text,
    };
  };
  const auditRefusal = () =>
    deps.audit.record({
      userId: ask.requester.userId,
      action: "change",
      target: `${ask.verb} ${ask.cluster}`.slice(0, 300),
      outcome: "denied",
      detail: JSON.stringify({ reason: "no Palette user to act as" }),
    });
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
    const lines = await personalRefusalLines(
      error,
      acting.link,
      "see this cluster",
      ask.project,
      identity,
    );
    if (lines) {
      if (ask.reader === "approver") {
        // the approver linked nothing: they hear it is the requester's key, the requester (and
        // the request card, which the channel reads) get their own words
        const told = approverLines(error, acting.link, ask.requester.userId, ask.project);
        const reply = errorReply(told.mrkdwn, told.text, told.hint);
        return { kind: "refused", reply, reason: told.reason, forRequester: lines.plain };
      }
      const reply = errorReply(lines.mrkdwn, lines.plain, lines.hint);
      return { kind: "refused", reply, reason: lines.plain };
    }
    throw error;
  } finally {
    await acting.palette.close();
  }
}

/** The requester's "link first" told to the person approving their request, who cannot link for them. */
function requesterCannotAct(requester: string): MessageReply {
  return errorReply(
    `:key: Not sent: this change acts in Palette as <@${requester}>, and no Palette user is linked to them now.`,
    "Not sent: the requester has no Palette user linked now.",
    "They can link theirs with `/palette login` and ask again.",
  );
}

/**
 * Palette's refusal of the requester's key (a 401 or 403, which personalRefusalLines handled),
 * told to the person approving their request: whose key it was, and that the requester is told.
 */
function approverLines(
  error: unknown,
  link: IdentityLink,
  requester: string,
  project: string | undefined,
): { mrkdwn: string; text: string; hint: string; reason: string } {
  const who = escapeMrkdwn(link.paletteUserName);
  if (error instanceof PaletteError && error.kind === "forbidden") {
    const where = project ? ` in project ${code(project)}` : "";
    return {
      mrkdwn: `:no_entry: Not sent: this change acts in Palette as ${mention(requester)}, and Palette does not allow their user ${who} to see this cluster${where}.`,
      text: "Not sent: Palette does not allow the requester's Palette user to see this cluster.",
      hint: "Their role in Palette decides this; a Palette admin can change it. They have been told.",
      reason: `Palette does not allow the requester's Palette user ${link.paletteUserName} to see this cluster${project ? ` in project ${project}` : ""}`,
    };
  }
  if (link.method !== "key") {
    return {
      mrkdwn: `:key: Not sent: Palette did not accept the key made for ${who}, the Palette user ${mention(requester)} acts as.`,
      text: "Not sent: Palette did not accept the key made for the requester.",
      hint: "They can ask again in a minute; they have been told.",
      reason: `Palette did not accept the key made for the requester's Palette user ${link.paletteUserName}`,
    };
  }
  return {
    mrkdwn: `:key: Not sent: this change acts in Palette as ${mention(requester)}, and Palette no longer accepts the key they linked as ${who} (expired or revoked), so it was unlinked.`,
    text: "Not sent: Palette no longer accepts the requester's linked key.",
    hint: "They have been told to link a new one with `/palette login` and ask again.",
    reason: "Palette no longer accepts the requester's linked key (expired or revoked)",
  };
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
