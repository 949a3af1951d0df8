import type { FakeSlack, RecordedCall } from "../../test/support/fake-slack.ts";
import type { Delivered } from "./score.ts";

/**
 * Windows of time in which the fake Slack misbehaves: rate limits, outages, a revoked token,
 * and one channel whose posts hang. Outside them it accepts, and what it accepts is recorded as
 * delivered: the only messages a person in the channel would see.
 */

export type SlackWindowKind = "ratelimited" | "unavailable" | "invalid_auth" | "hang";

export interface SlackWindow {
  kind: SlackWindowKind;
  /** wall-clock ms */
  from: number;
  to: number;
  /** for "hang": the one channel whose posts get no answer */
  channel?: string;
}

export interface SlackChaos {
  delivered: Delivered[];
  refused: Record<SlackWindowKind, number>;
}

const WINDOWED = ["chat.postMessage", "chat.update", "auth.test"];

/** The mrkdwn of a message's section blocks: where a digest names its clusters. */
function sectionTexts(blocks: unknown): string[] {
  if (!Array.isArray(blocks)) return [];
  return blocks.flatMap((block) => {
    const text = (block as { type?: string; text?: { text?: unknown } }).text?.text;
    return (block as { type?: string }).type === "section" && typeof text === "string"
      ? [text]
      : [];
  });
}

export function installSlackWindows(fake: FakeSlack, windows: readonly SlackWindow[]): SlackChaos {
  const delivered: Delivered[] = [];
  const refused: Record<SlackWindowKind, number> = {
    ratelimited: 0,
    unavailable: 0,
    invalid_auth: 0,
    hang: 0,
  };

  // A window is armed at `from` and opens at the first call it applies to, lasting `to - from`
  // from then: a window planned where the bot happened to send nothing (seen in CI: all four fell
  // between bursts, the run met no fault and its check that faults happened failed) still meets
  // the bot's next calls, so every run has its faults whatever the timing.
  const openedAt = new Map<SlackWindow, number>();
  const appliesTo = (window: SlackWindow, call: RecordedCall) =>
    window.kind !== "hang" || (call.method !== "auth.test" && call.body.channel === window.channel);
  const activeFor = (call: RecordedCall, now: number): SlackWindow | undefined =>
    windows.find((window) => {
      if (now < window.from || !appliesTo(window, call)) return false;
      const opened = openedAt.get(window) ?? now;
      openedAt.set(window, opened);
      return now < opened + (window.to - window.from);
    });

  for (const method of WINDOWED) {
    fake.on(method, async (call) => {
      const now = Date.now();
      const window = activeFor(call, now);
      if (window) refused[window.kind] += 1;
      switch (window?.kind) {
        case "ratelimited":
          return {
            status: 429,
            headers: { "retry-after": "2" },
            body: { ok: false, error: "ratelimited" },
          };
        case "unavailable":
          return { status: 503, body: { ok: false, error: "service_unavailable" } };
        case "invalid_auth":
          return { body: { ok: false, error: "invalid_auth" } };
        case "hang":
          // no answer until the window ends; by then the bot has given up, and Slack posted nothing
          await new Promise((resolve) =>
            setTimeout(resolve, (openedAt.get(window) ?? now) + (window.to - window.from) - now),
          );
          return { status: 503, body: { ok: false, error: "service_unavailable" } };
        default:
          if (method === "chat.postMessage") {
            delivered.push({
              channel: String(call.body.channel),
              at: Date.now(),
              text: String(call.body.text ?? ""),
              sections: sectionTexts(call.body.blocks),
            });
          }
          return undefined;
      }
    });
  }
  return { delivered, refused };
}
