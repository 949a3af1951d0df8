import type { ProbeResult } from "../http/health.ts";
import type { PollerMetrics } from "../notify/poll/poll.ts";
import type { PaletteClientEvent } from "../palette/client.ts";

/**
 * Readiness as far as Palette goes, in two probes:
 * - `credentials` (critical): the bot has polled Palette successfully once, and Palette has not
 *   rejected its credential since (a 401 that a fresh login did not cure, or a failed login).
 *   A bot in that state cannot answer anything useful: take it out of service.
 * - `poll` (advisory): the last poll succeeded. A blip (5xx, time-out, rate limit) reports the
 *   bot as degraded but keeps it in service, so Slack still reaches it and users hear
 *   "Palette did not answer" instead of nothing. A project whose alert kinds Palette refuses
 *   degrades it too: its cluster changes flow, its alerts do not, and someone should know.
 *
 * With replicas (issue 12) only the leader polls. A follower serves commands, so it is ready
 * without a poll of its own (a credential Palette rejects still takes it out), and a follower
 * that takes the lease over stays ready while its first poll runs: the poll gate holds only for
 * a replica that has led since its start, which is the one replica of a SQLite bot.
 */
export interface Leadership {
  /** this replica holds the lease and polls */
  leading: boolean;
  /** it has been a follower since it started (served commands without polling) */
  followedBefore: boolean;
}

const ALWAYS_LEADS: Leadership = { leading: true, followedBefore: false };

export function paletteReadiness(
  poller: { metrics(): PollerMetrics },
  leadership: () => Leadership = () => ALWAYS_LEADS,
): {
  observe(event: PaletteClientEvent): void;
  credentials(): ProbeResult;
  poll(): ProbeResult;
} {
  let rejected: string | undefined;
  return {
    observe(event) {
      if (event.type === "login" && !event.ok) rejected = `Palette login failed (${event.reason})`;
      if (event.type === "login" && event.ok) rejected = undefined;
      if (event.type !== "request") return;
      if (event.status === 401) rejected = `Palette answered 401 to ${event.endpoint}`;
      else if (event.status >= 200 && event.status < 300) rejected = undefined;
    },
    credentials() {
      if (rejected) {
        return { ok: false, reason: `${rejected}: check PALETTE_API_KEY or the service account` };
      }
      const role = leadership();
      if (!role.leading || role.followedBefore) return { ok: true };
      const last = poller.metrics();
      if (!last.lastSuccessAt) {
        const why = last.lastError ? ` (last attempt: ${last.lastError})` : "";
        return { ok: false, reason: `waiting for the first successful poll of Palette${why}` };
      }
      return { ok: true };
    },
    poll() {
      // a follower's poller never runs: what it would say is the leader's to say
      if (!leadership().leading) return { ok: true };
      const last = poller.metrics();
      if (last.cycles > 0 && !last.lastCycleOk) {
        return {
          ok: false,
          reason: `the last poll of Palette failed: ${last.lastError ?? "unknown"}`,
        };
      }
      if (last.alertsUnavailable.length > 0) {
        return { ok: false, reason: last.alertsUnavailable.join("; ") };
      }
      return { ok: true };
    },
  };
}
