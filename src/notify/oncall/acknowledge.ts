import type { AccessPolicy } from "../../access/types.ts";
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../log.ts";
import type { CardAck } from "../../model/notification.ts";
import { AckStore } from "../../store/acks.ts";
import type { AuditLog, AuditOutcome } from "../../store/audit.ts";
import { type Card, CardStore } from "../../store/cards.ts";
import type { SqlDb } from "../../store/sql.ts";

export interface AckDeps {
  db: SqlDb;
  policy: AccessPolicy;
  audit: AuditLog;
  clock: Clock;
  logger: Logger;
}

export interface AckRequest {
  /** the channel of the card */
  channel: string;
  userId: string;
  /** the card message clicked (Slack); it names the cluster better than the button's value */
  messageTs?: string;
  /** the cluster, when no message was clicked (console) or the message is not one we know */
  clusterUid?: string;
}

export type AckDecision =
  /** stored: the edge now edits the card and adds the thread line */
  | { kind: "acknowledged"; clusterUid: string; ack: CardAck; card: Card }
  /** someone (maybe the requester) already has it; the first acknowledgement stands */
  | { kind: "already"; clusterUid: string; ack: CardAck }
  /** outside ALLOW_ACK; `hint` says who grants it (plain text with backticks) */
  | { kind: "refused"; hint: string }
  /** the bot follows no card for it in that channel (deleted, replaced, never ours) */
  | { kind: "unknown-card" };

/**
 * Acknowledge a channel's card of a cluster: "I have this". Every edge (Slack button, console
 * verb) calls this and carries out the decision its own way. The acknowledgement lasts until the
 * cluster is Healthy again (the sender clears it, see src/notify/oncall/incident.ts); meanwhile the card
 * says who has it and the incident's news stays in the card's thread. Audited and logged.
 */
export async function acknowledgeCard(deps: AckDeps, request: AckRequest): Promise<AckDecision> {
  const { channel, userId } = request;
  if (!(await deps.policy.allows(userId, "ack"))) {
    await trail(deps, request, request.clusterUid ?? "?", "denied");
    return { kind: "refused", hint: deps.policy.grantHint("ack") };
  }
  const cards = new CardStore(deps.db);
  const card =
    (request.messageTs ? await cards.byTs(channel, request.messageTs) : undefined) ??
    (request.clusterUid ? await cards.get(channel, request.clusterUid) : undefined);
  if (!card || card.owner) {
    await trail(deps, request, request.clusterUid ?? "?", "rejected", { reason: "no card" });
    return { kind: "unknown-card" };
  }
  const target = card.payload
    ? `${card.payload.cluster.name} (${card.clusterUid})`
    : card.clusterUid;
  const acks = new AckStore(deps.db);
  const mine: CardAck = { userId, at: deps.clock.now() };
  // the store keeps the first one, also against another replica storing one at the same moment
  const existing = await acks.get(channel, card.clusterUid);
  const standing = existing ?? (await acks.put(channel, card.clusterUid, mine));
  if (existing || standing.userId !== mine.userId || standing.at !== mine.at) {
    await trail(deps, request, target, "rejected", { acknowledgedBy: standing.userId });
    return { kind: "already", clusterUid: card.clusterUid, ack: standing };
  }
  await trail(deps, request, target, "granted");
  return { kind: "acknowledged", clusterUid: card.clusterUid, ack: standing, card };
}

async function trail(
  deps: AckDeps,
  request: AckRequest,
  target: string,
  outcome: AuditOutcome,
  detail?: Record<string, string>,
): Promise<void> {
  await deps.audit.record({
    userId: request.userId,
    action: "ack",
    target,
    outcome,
    detail: JSON.stringify({ channel: request.channel, ...detail }),
  });
  deps.logger.info(
    { userId: request.userId, channel: request.channel, target, outcome, ...detail },
    "card acknowledgement",
  );
}
