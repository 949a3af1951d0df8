import type { Clock } from "../clock.ts";
import type { ProbeResult } from "../http/health.ts";
import type { SenderStatus } from "../notify/delivery/outbox-sender.ts";

const seconds = (ms: number) => `${Math.max(0, Math.round(ms / 1000))} s`;

/**
 * Readiness as far as notifications go (advisory): a sender paused because Slack refuses the bot
 * (revoked token, missing scope) shows in `/readyz` with Slack's code and when it tries again.
 * Commands may still work, so it degrades the report rather than taking the bot out of service.
 */
export function senderReadiness(
  sender: { status(): SenderStatus },
  clock: Clock,
): () => ProbeResult {
  return () => {
    const status = sender.status();
    if (!status.paused) return { ok: true };
    const now = clock.now();
    const since = status.since === undefined ? "" : ` for ${seconds(now - status.since)}`;
    const next =
      status.nextProbeAt === undefined ? "" : `; next try in ${seconds(status.nextProbeAt - now)}`;
    return {
      ok: false,
      reason: `notifications paused${since}: Slack answers ${status.reason ?? "an error"} to the bot (check SLACK_BOT_TOKEN and its scopes); nothing is dropped${next}`,
    };
  };
}
