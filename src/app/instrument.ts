import type { App, ReceiverEvent } from "@slack/bolt";
import type { Metrics } from "../http/metrics.ts";
import { type SlackPoster, SlackSendError } from "../notify/delivery/slack-port.ts";
import type { PaletteClientEvent } from "../palette/client.ts";
import { dispatch as baseDispatch } from "../registry/dispatch.ts";
import type { Dispatch } from "../slack/types.ts";

/** Palette client events → Prometheus series. */
export function paletteMetricsHook(metrics: Metrics): (event: PaletteClientEvent) => void {
  return (event) => {
    switch (event.type) {
      case "request":
        metrics.paletteCall(event.prefix, event.status || "error");
        break;
      case "retry":
        metrics.paletteRetry(event.prefix);
        break;
      case "login":
        metrics.paletteLogin(event.ok ? "ok" : "error");
        break;
      case "refresh":
        metrics.tokenRefreshed(event.ok ? "ok" : "error");
        break;
    }
  };
}

/**
 * The notification sender's Slack calls (`chat.postMessage`, `chat.update`, and the `auth.test`
 * it asks before giving a message up) counted by outcome: the bulk of the bot's Slack traffic,
 * and the first place a revoked token or a rate limit shows.
 */
export function countingPoster(metrics: Metrics, poster: SlackPoster): SlackPoster {
  async function counted<T>(method: string, call: Promise<T>): Promise<T> {
    try {
      const result = await call;
      metrics.slackCall(method, "ok");
      return result;
    } catch (error) {
      const limited = error instanceof SlackSendError && error.kind === "ratelimited";
      metrics.slackCall(method, limited ? "rate_limited" : "error");
      throw error;
    }
  }
  return {
    postMessage: (message) => counted("chat.postMessage", poster.postMessage(message)),
    update: (message) => counted("chat.update", poster.update(message)),
    // kept absent when the inner poster has none: the sender then counts Slack as reachable
    ...(poster.ping ? { ping: () => counted("auth.test", poster.ping!()) } : {}),
    // the look-up before a re-post (conversations.history or .replies, one or more pages)
    ...(poster.findPost
      ? { findPost: (query) => counted("conversations.history", poster.findPost!(query)) }
      : {}),
  };
}

/** The dispatcher, counting each command by verb and by the kind of answer it got. */
export function countingDispatch(metrics: Metrics, dispatch: Dispatch = baseDispatch): Dispatch {
  return async (text, ctx) => {
    const verb = text.trim().split(/\s+/)[0]?.toLowerCase() || "help";
    try {
      const reply = await dispatch(text, ctx);
      metrics.commandHandled(verb, reply.kind);
      return reply;
    } catch (error) {
      metrics.commandHandled(verb, "error");
      throw error;
    }
  };
}

/**
 * Times every `ack()` from the moment the receiver hands Bolt the request (after the signature
 * check) to the moment Slack's answer is sent: the figure that must stay far under Slack's 3 s.
 *
 * It wraps `app.processEvent`, the one door every receiver (HTTP and Socket Mode) goes through,
 * because a global middleware cannot do it: Bolt gives each middleware and listener its own copy
 * of the arguments, so an `ack` replaced in a middleware is never the one the listener calls.
 */
export function registerAckTiming(metrics: Metrics): (app: App) => void {
  return (app) => {
    const processEvent = app.processEvent.bind(app);
    app.processEvent = (event: ReceiverEvent) => {
      const started = performance.now();
      const ack = event.ack;
      let timed = false;
      return processEvent({
        ...event,
        ack: async (...rest: Parameters<typeof ack>) => {
          await ack(...rest);
          if (timed) return;
          timed = true;
          metrics.observeAck((performance.now() - started) / 1000);
        },
      });
    };
  };
}
