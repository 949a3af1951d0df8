import {
  type Agent,
  type Dispatcher,
  EnvHttpProxyAgent,
  getGlobalDispatcher,
  setGlobalDispatcher,
  fetch as undiciFetch,
} from "undici";
import type { ProxyConfig } from "./config.ts";

/**
 * The outbound proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY; issue 38). undici's EnvHttpProxyAgent
 * picks the proxy per request from the target's scheme and NO_PROXY, and tunnels through it with
 * CONNECT. It is given the parsed values, never left to read process.env itself: the
 * configuration is read once, and tests pass theirs.
 */

export const NO_PROXY_CONFIG: ProxyConfig = { noProxy: "" };

export function proxyInUse(proxy: ProxyConfig | undefined): proxy is ProxyConfig {
  return proxy?.httpsProxy !== undefined || proxy?.httpProxy !== undefined;
}

/** A dispatcher that goes through the proxy except for what NO_PROXY names. */
export function proxyDispatcher(proxy: ProxyConfig, agent: Agent.Options = {}): Dispatcher {
  return new EnvHttpProxyAgent({
    ...agent,
    // "" rather than undefined: undefined makes undici fall back to process.env
    httpsProxy: proxy.httpsProxy?.reveal() ?? proxy.httpProxy?.reveal() ?? "",
    httpProxy: proxy.httpProxy?.reveal() ?? "",
    noProxy: proxy.noProxy,
  });
}

/** fetch through a dispatcher (the doctor's probes, which are given a fetch). */
export function fetchThrough(dispatcher: Dispatcher): typeof fetch {
  return ((input: string | URL, init?: RequestInit) =>
    undiciFetch(input, { ...(init as object), dispatcher })) as unknown as typeof fetch;
}

/**
 * The process's default dispatcher through the proxy: Node's fetch and undici's request read it,
 * so Slack's WebClient, file uploads and the AI SDK's providers go through the proxy without each
 * being handed one. Palette's pool and Socket Mode's WebSocket build their own connections and
 * are given the dispatcher instead. Returns how to put the previous one back.
 */
export function routeProcessThroughProxy(proxy: ProxyConfig): () => void {
  if (!proxyInUse(proxy)) return () => {};
  const previous = getGlobalDispatcher();
  const through = proxyDispatcher(proxy);
  setGlobalDispatcher(through);
  return () => {
    if (getGlobalDispatcher() === through) setGlobalDispatcher(previous);
    void through.close();
  };
}

/** host:port of a proxy URL: what a log or the doctor may show (never a user or password). */
export function proxyAddress(url: string): string {
  const parsed = new URL(url);
  const port = parsed.port || (parsed.protocol === "https:" ? "443" : "80");
  return `${parsed.hostname}:${port}`;
}

/** One line on the proxy in use, or undefined when there is none. */
export function describeProxy(proxy: ProxyConfig): string | undefined {
  if (!proxyInUse(proxy)) return undefined;
  const https = proxy.httpsProxy ?? proxy.httpProxy;
  const parts = [
    `https:// through ${proxyAddress(https!.reveal())}`,
    proxy.httpProxy
      ? `http:// through ${proxyAddress(proxy.httpProxy.reveal())}`
      : "http:// direct",
    proxy.noProxy ? `not for NO_PROXY (${proxy.noProxy})` : "NO_PROXY empty",
  ];
  return parts.join(", ");
}
