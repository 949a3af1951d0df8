import { request as undiciRequest } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import type { ProxyConfig } from "../../src/config.ts";
import { createUndiciTransport } from "../../src/palette/http.ts";
import { fetchThrough, proxyDispatcher, routeProcessThroughProxy } from "../../src/proxy.ts";
import { Secret } from "../../src/secret.ts";
import {
  type CountingProxy,
  startCountingProxy,
  type TunnelMode,
} from "../support/counting-proxy.ts";

/**
 * A proxy that will not open the tunnel (issue 38, review finding 4). One that closes the
 * connection after CONNECT without answering used to send undici into a reconnect loop: hundreds
 * of CONNECTs a second, the request never failing and its AbortSignal never heard. Each call here
 * must fail with a clear error after a handful of CONNECTs; a loop shows as a count in the
 * thousands or the test's time-out. The target is never reached (the proxy refuses), so its name
 * need not resolve.
 */

const TARGET = "https://palette.example.invalid";
/** retries are the callers' business (with back-off); one request makes at most this many */
const FEW_CONNECTS = 3;

let proxy: CountingProxy;
const undo: Array<() => Promise<void> | void> = [];

async function proxyThat(connect: TunnelMode): Promise<ProxyConfig> {
  proxy = await startCountingProxy({ connect });
  undo.push(() => proxy.close());
  return { httpsProxy: new Secret(proxy.url), noProxy: "" };
}

afterEach(async () => {
  for (const step of undo.splice(0).reverse()) await step();
});

describe("a proxy that closes the connection after CONNECT", () => {
  it("fails a Palette request after a few CONNECTs, naming the proxy", async () => {
    const transport = createUndiciTransport(`${TARGET}/v1`, { proxy: await proxyThat("close") });
    undo.push(() => transport.close());
    await expect(
      transport.send({ method: "GET", path: "/v1/users/me", headers: {} }),
    ).rejects.toThrow(/the proxy did not open a tunnel/);
    expect(proxy.tunnels.length).toBeGreaterThanOrEqual(1);
    expect(proxy.tunnels.length).toBeLessThanOrEqual(FEW_CONNECTS);
    expect(proxy.tunnels[0]).toBe("palette.example.invalid:443");
  });

  it("fails the doctor's fetch the same way", async () => {
    const dispatcher = proxyDispatcher(await proxyThat("close"));
    undo.push(() => dispatcher.close());
    await expect(fetchThrough(dispatcher)(`${TARGET}/v1/users/me`)).rejects.toThrow();
    expect(proxy.tunnels.length).toBeGreaterThanOrEqual(1);
    expect(proxy.tunnels.length).toBeLessThanOrEqual(FEW_CONNECTS);
  });

  it("fails what goes through the process's dispatcher (Slack's Web API, the model)", async () => {
    undo.push(routeProcessThroughProxy(await proxyThat("close")));
    await expect(undiciRequest("https://slack.example.invalid/api/auth.test")).rejects.toThrow(
      /the proxy did not open a tunnel/,
    );
    await expect(fetch("https://model.example.invalid/v1/chat/completions")).rejects.toThrow();
    expect(proxy.tunnels.length).toBeGreaterThanOrEqual(2);
    expect(proxy.tunnels.length).toBeLessThanOrEqual(2 * FEW_CONNECTS);
  });
});

describe("a proxy that takes CONNECT and never answers", () => {
  it("fails a Palette request at the connect time-out, after one CONNECT", async () => {
    const transport = createUndiciTransport(`${TARGET}/v1`, {
      proxy: await proxyThat("silent"),
      connectTimeoutMs: 300,
    });
    undo.push(() => transport.close());
    await expect(
      transport.send({ method: "GET", path: "/v1/users/me", headers: {} }),
    ).rejects.toThrow(/the proxy did not open a tunnel/);
    expect(proxy.tunnels).toEqual(["palette.example.invalid:443"]);
  });
});
