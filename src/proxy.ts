import {
  type Agent,
  type Dispatcher,
  EnvHttpProxyAgent,
  getGlobalDispatcher,
  Pool,
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

/** How long the proxy has to accept the connection and answer CONNECT, unless told otherwise. */
export const PROXY_TUNNEL_TIMEOUT_MS = 10_000;

/** The proxy did not set up the tunnel: it closed the connection or never answered CONNECT. */
export class ProxyTunnelError extends Error {
  // not undici's UND_ERR_SOCKET: that code makes undici's client open a new tunnel at once, forever
  readonly code = "PROXY_TUNNEL_FAILED";
  constructor(cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`the proxy did not open a tunnel (${reason})`);
    this.name = "ProxyTunnelError";
  }
}

/**
 * The pool that talks to the proxy itself. undici's ProxyAgent hands a failed CONNECT's error
 * to the target's client as it came; when the proxy just closed the socket that is a
 * UND_ERR_SOCKET, which the client takes for a dropped keep-alive and retries without a pause or
 * a limit (hundreds of CONNECTs a second, the request's AbortSignal never consulted). Recast, it
 * fails the waiting requests, and the callers' own retries (with their back-off) take over. The
 * headers time-out bounds a proxy that accepts and never answers.
 */
function tunnelPoolFactory(timeoutMs: number) {
  return (origin: URL, options: object): Dispatcher => {
    const pool = new Pool(origin, { ...options, headersTimeout: timeoutMs });
    const connect = pool.connect.bind(pool) as (
      options: Dispatcher.ConnectOptions,
    ) => Promise<Dispatcher.ConnectData>;
    const failing = (options: Dispatcher.ConnectOptions) =>
      connect(options).catch((error: unknown) => {
        throw new ProxyTunnelError(error);
      });
    return Object.assign(pool, { connect: failing }) as Dispatcher;
  };
}

function connectTimeoutOf(agent: Agent.Options): number {
  const connect = agent.connect;
  return typeof connect === "object" && connect?.timeout
    ? connect.timeout
    : PROXY_TUNNEL_TIMEOUT_MS;
}

/**
 * A dispatcher that goes through the proxy except for what NO_PROXY names. The agent's connect
 * time-out also bounds the proxy: reaching it and its answer to CONNECT.
 */
export function proxyDispatcher(proxy: ProxyConfig, agent: Agent.Options = {}): Dispatcher {
  const timeoutMs = connectTimeoutOf(agent);
  return new EnvHttpProxyAgent({
    connect: { timeout: timeoutMs },
    ...agent,
    clientFactory: tunnelPoolFactory(timeoutMs),
    proxyTls: { timeout: timeoutMs },
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

/**
 * NO_PROXY entries written as CIDR ranges (`10.0.0.0/8`): undici matches none of them, so what
 * they were meant to exempt still goes through the proxy.
 */
export function noProxyRanges(noProxy: string): string[] {
  return noProxy.split(/[,\s]+/).filter((entry) => entry.includes("/"));
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
