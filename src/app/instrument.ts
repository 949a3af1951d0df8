import type { App } from "@slack/bolt";
import { dispatch as baseDispatch } from "../commands/dispatch.ts";
import type { Metrics } from "../http/metrics.ts";
import type { PaletteClientEvent } from "../palette/client.ts";
import type { Dispatch } from "../slack/types.ts";

/** Palette client events → Prometheus series. */
export function paletteMetricsHook(metrics: Metrics): (event: PaletteClientEvent) => void {
  return (event) => {
    switch (event.type) {
      case "request":
        metrics.paletteCall(event.endpoint.split(" ")[1] ?? event.prefix, event.status || "error");
        break;
      case "retry":
        metrics.paletteRetry(event.endpoint.split(" ")[1] ?? event.endpoint);
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
 * Times every `ack()` from the moment Bolt's middleware chain starts (after the signature check)
 * to the moment Slack's answer is sent: the figure that must stay far under Slack's 3 s.
 */
export function registerAckTiming(metrics: Metrics): (app: App) => void {
  return (app) => {
    app.use(async (args) => {
      const started = performance.now();
      const withAck = args as { ack?: (...rest: unknown[]) => Promise<void> };
      const ack = withAck.ack;
      if (typeof ack === "function") {
        withAck.ack = async (...rest: unknown[]) => {
          await ack(...rest);
          metrics.observeAck((performance.now() - started) / 1000);
        };
      }
      await args.next();
    });
  };
}
