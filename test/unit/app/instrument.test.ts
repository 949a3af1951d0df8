import type { App, ReceiverEvent } from "@slack/bolt";
import { describe, expect, it } from "vitest";
import {
  countingDispatch,
  countingPoster,
  paletteMetricsHook,
  registerAckTiming,
} from "../../../src/app/instrument.ts";
import { Metrics } from "../../../src/http/metrics.ts";
import { type SlackPoster, SlackSendError } from "../../../src/notify/delivery/slack-port.ts";
import { prefixLabel, ruleFor } from "../../../src/palette/rate-limits.ts";
import type { CommandContext, Reply } from "../../../src/verb-kit/types.ts";
import { sampleValue } from "../../support/prometheus.ts";

const VERBS = ["clusters", "cluster", "kubeconfig", "help", "launch"];

function metrics(): Metrics {
  return new Metrics({ knownVerbs: VERBS, defaultMetrics: false });
}

/** The value of one sample of the metrics' exposition, e.g. `name{a="b"}`. */
async function sample(m: Metrics, series: string): Promise<number | undefined> {
  return sampleValue(await m.render(), series);
}

const ctx = {} as CommandContext;
const message: Reply = { kind: "message", blocks: [], text: "ok" } as unknown as Reply;
const file: Reply = { kind: "file" } as unknown as Reply;

describe("countingDispatch", () => {
  it("counts each command by verb and by the kind of reply, and passes the reply on", async () => {
    const m = metrics();
    const seen: string[] = [];
    const dispatch = countingDispatch(m, async (text) => {
      seen.push(text);
      return text.startsWith("kubeconfig") ? file : message;
    });
    expect(await dispatch("clusters env", ctx)).toBe(message);
    await dispatch("  CLUSTERS  ", ctx);
    expect(await dispatch("kubeconfig web", ctx)).toBe(file);
    await dispatch("", ctx);
    expect(seen).toEqual(["clusters env", "  CLUSTERS  ", "kubeconfig web", ""]);
    expect(
      await sample(m, 'palette_chatops_commands_total{verb="clusters",outcome="message"}'),
    ).toBe(2);
    expect(
      await sample(m, 'palette_chatops_commands_total{verb="kubeconfig",outcome="file"}'),
    ).toBe(1);
    // an empty command is help
    expect(await sample(m, 'palette_chatops_commands_total{verb="help",outcome="message"}')).toBe(
      1,
    );
  });

  it("counts unknown verbs as other, so user input cannot create series", async () => {
    const m = metrics();
    const dispatch = countingDispatch(m, async () => message);
    await dispatch("<!channel> drop", ctx);
    await dispatch("frobnicate", ctx);
    expect(await sample(m, 'palette_chatops_commands_total{verb="other",outcome="message"}')).toBe(
      2,
    );
    expect(await m.render()).not.toContain("frobnicate");
    expect(await m.render()).not.toContain("channel");
  });

  it("counts a throwing command as an error and rethrows it", async () => {
    const m = metrics();
    const boom = new Error("palette exploded");
    const dispatch = countingDispatch(m, async () => {
      throw boom;
    });
    await expect(dispatch("cluster web", ctx)).rejects.toBe(boom);
    expect(await sample(m, 'palette_chatops_commands_total{verb="cluster",outcome="error"}')).toBe(
      1,
    );
  });
});

describe("paletteMetricsHook", () => {
  it("turns requests into calls by rate-limit prefix and status, never by UID", async () => {
    const m = metrics();
    const hook = paletteMetricsHook(m);
    const request = (endpoint: string, status: number) =>
      hook({
        type: "request",
        method: endpoint.split(" ")[0]!,
        prefix: prefixLabel(ruleFor(endpoint.split(" ")[1]!)),
        endpoint,
        status,
        durationMs: 5,
        waitedMs: 0,
      });
    request("POST /v1/dashboard/spectroclusters/search", 200);
    request("POST /v1/dashboard/spectroclusters/search", 200);
    request("GET /v1/spectroclusters/0259e9035b9ad0e87feda4a7/assets/kubeconfig", 200);
    request("GET /v1/spectroclusters/0259e9035b9ad0e87feda4a7", 404);
    request("GET /v1/events/components/spectrocluster/abc", 429);
    request("GET /v1/projects/alerts", 0);

    const calls = (prefix: string, status: string) =>
      sample(m, `palette_chatops_palette_requests_total{prefix="${prefix}",status="${status}"}`);
    expect(await calls("/v1/dashboard", "200")).toBe(2);
    expect(await calls("/v1/spectroclusters/{uid}/assets", "200")).toBe(1);
    expect(await calls("/v1/spectroclusters", "404")).toBe(1);
    expect(await calls("/v1/events", "429")).toBe(1);
    // no answer at all (status 0) is "error"
    expect(await calls("/v1/projects", "error")).toBe(1);
    expect(await sample(m, 'palette_chatops_palette_rate_limited_total{prefix="/v1/events"}')).toBe(
      1,
    );
    expect(await m.render()).not.toContain("0259e9035b9ad0e87feda4a7");
  });

  it("counts retries, logins and token refreshes with their outcome", async () => {
    const m = metrics();
    const hook = paletteMetricsHook(m);
    hook({
      type: "retry",
      prefix: "/v1/dashboard",
      endpoint: "POST /v1/dashboard/spectroclusters/search",
      attempt: 1,
      delayMs: 200,
      reason: "server",
    });
    hook({ type: "login", ok: true, reason: "first" });
    hook({ type: "login", ok: false, reason: "refresh failed" });
    hook({ type: "refresh", ok: true });
    hook({ type: "refresh", ok: true });
    hook({ type: "refresh", ok: false });
    expect(await sample(m, 'palette_chatops_palette_retries_total{prefix="/v1/dashboard"}')).toBe(
      1,
    );
    expect(await sample(m, 'palette_chatops_palette_logins_total{outcome="ok"}')).toBe(1);
    expect(await sample(m, 'palette_chatops_palette_logins_total{outcome="error"}')).toBe(1);
    expect(await sample(m, 'palette_chatops_palette_token_refreshes_total{outcome="ok"}')).toBe(2);
    expect(await sample(m, 'palette_chatops_palette_token_refreshes_total{outcome="error"}')).toBe(
      1,
    );
  });
});

describe("registerAckTiming", () => {
  /** The part of Bolt's App the timing touches: receivers hand every request to processEvent. */
  function fakeApp(listener: (event: ReceiverEvent) => Promise<void>) {
    const app = { processEvent: listener };
    return app as unknown as App & { processEvent: (event: ReceiverEvent) => Promise<void> };
  }

  it("observes the time to the first ack of each request, once, and passes the ack through", async () => {
    const m = metrics();
    const acked: unknown[] = [];
    const app = fakeApp(async (event) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      await event.ack({ text: "hi" });
      await event.ack(); // a second ack is Bolt's business, not a second observation
    });
    registerAckTiming(m)(app);
    for (let i = 0; i < 2; i++) {
      await app.processEvent({
        body: {},
        ack: async (response?: unknown) => {
          acked.push(response);
        },
      });
    }
    expect(acked).toEqual([{ text: "hi" }, undefined, { text: "hi" }, undefined]);
    expect(await sample(m, "palette_chatops_ack_seconds_count")).toBe(2);
    const sum = (await sample(m, "palette_chatops_ack_seconds_sum"))!;
    expect(sum).toBeGreaterThanOrEqual(0.03);
    expect(sum).toBeLessThan(2);
  });

  it("observes nothing for a request never acked", async () => {
    const m = metrics();
    const app = fakeApp(async () => {});
    registerAckTiming(m)(app);
    await app.processEvent({ body: {}, ack: async () => {} });
    expect(await sample(m, "palette_chatops_ack_seconds_count")).toBe(0);
  });
});

describe("countingPoster", () => {
  it("counts the sender's Slack calls by method and outcome, passing results and errors on", async () => {
    const m = metrics();
    const failures = [
      new SlackSendError("ratelimited", "ratelimited", 1_000),
      new SlackSendError("channel", "not_in_channel"),
    ];
    const inner: SlackPoster = {
      postMessage: async (message) => {
        const failure = message.channel === "CFAIL" ? failures.shift() : undefined;
        if (failure) throw failure;
        return { ts: "1.2" };
      },
      update: async () => {
        throw new Error("socket hang up");
      },
    };
    const poster = countingPoster(m, inner);
    expect(await poster.postMessage({ channel: "C1", text: "a" })).toEqual({ ts: "1.2" });
    await expect(poster.postMessage({ channel: "CFAIL", text: "b" })).rejects.toMatchObject({
      kind: "ratelimited",
      retryAfterMs: 1_000,
    });
    await expect(poster.postMessage({ channel: "CFAIL", text: "c" })).rejects.toMatchObject({
      kind: "channel",
    });
    await expect(poster.update({ channel: "C1", ts: "1.2", text: "d" })).rejects.toThrow(
      "socket hang up",
    );
    const calls = (method: string, outcome: string) =>
      sample(m, `palette_chatops_slack_calls_total{method="${method}",outcome="${outcome}"}`);
    expect(await calls("chat.postmessage", "ok")).toBe(1);
    expect(await calls("chat.postmessage", "rate_limited")).toBe(1);
    expect(await calls("chat.postmessage", "error")).toBe(1);
    expect(await calls("chat.update", "error")).toBe(1);
  });

  it("passes the sender's reachability ping through, counted as auth.test, and adds none", async () => {
    const m = metrics();
    let pings = 0;
    const inner: SlackPoster = {
      postMessage: async () => ({ ts: "1.2" }),
      update: async () => undefined,
      ping: async () => {
        pings += 1;
      },
    };
    await countingPoster(m, inner).ping!();
    expect(pings).toBe(1);
    expect(
      await sample(m, 'palette_chatops_slack_calls_total{method="auth.test",outcome="ok"}'),
    ).toBe(1);
    const { ping: _none, ...withoutPing } = inner;
    expect(countingPoster(m, withoutPing).ping).toBeUndefined();
  });
});
