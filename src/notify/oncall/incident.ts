import { isHealthy } from "../../model/cluster.ts";
import type { CardAck, CardPayload } from "../../model/notification.ts";

/**
 * Pure: where an incident on a card begins and ends, which is how long an acknowledgement lasts
 * ("until the cluster is Healthy again"). Judged per card row, from what the poll saw.
 */

/** The row shows the cluster Healthy again after trouble: health recovered, alert resolved, settled. */
export function endsIncident(payload: CardPayload): boolean {
  if (!isHealthy(payload.cluster.health)) return false;
  return (
    payload.kinds.includes("health-recovered") ||
    payload.kinds.includes("settled") ||
    payload.alerts.some((alert) => alert.status === "resolved")
  );
}

/**
 * The row shows new trouble after a Healthy spell: health left Healthy. A loss from no health
 * yet (a cluster still coming up) is the trouble it was already in; an alert raised alone is no
 * proof either (alerts return after Palette refused them, or a kind becomes supported, while the
 * cluster stays unhealthy).
 */
export function startsIncident(payload: CardPayload): boolean {
  return (
    payload.kinds.includes("health-lost") &&
    payload.previous !== undefined &&
    isHealthy(payload.previous.health)
  );
}

/**
 * An acknowledgement given before the poll saw a new incident begin belongs to an earlier one
 * (whose recovery this channel did not get as a card: folded into a digest, or the ack was given
 * while the cluster was Healthy). One given after is for this incident and stands.
 */
export function ackOutlived(payload: CardPayload, ack: CardAck): boolean {
  if (!startsIncident(payload)) return false;
  const seenAt = Date.parse(payload.at);
  // a row without a readable time cannot prove the ack came after it
  return Number.isNaN(seenAt) || ack.at <= seenAt;
}
