import { type Dispatcher, Pool } from "undici";
import type { ProxyConfig } from "../config.ts";
import { proxyDispatcher, proxyInUse } from "../proxy.ts";

/**
 * The one connection pool the client talks to Palette through. Everything above it deals in
 * plain requests and responses, so tests of the retry and auth logic need no sockets.
 */

export interface WireRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** API path with its query string, e.g. `/v1/dashboard/projects?limit=50` */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface WireResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: Buffer;
}

export interface Transport {
  send(request: WireRequest): Promise<WireResponse>;
  close(): Promise<void>;
}

export interface TransportOptions {
  /** default 10 s */
  connectTimeoutMs?: number;
  /** time to the headers and between body chunks; default 30 s */
  bodyTimeoutMs?: number;
  /** sockets kept open to Palette; default 16 */
  connections?: number;
  /** the largest response body read; past it the request fails (default 32 MiB) */
  maxBodyBytes?: number;
  /** HTTPS_PROXY and friends: through the proxy unless NO_PROXY names Palette's host */
  proxy?: ProxyConfig;
}

/** No Palette answer the bot reads comes near this; a larger one is refused, not buffered. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

function flatHeaders(
  raw: Record<string, string | string[] | undefined>,
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(raw)) {
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

export function createUndiciTransport(baseUrl: string, options: TransportOptions = {}): Transport {
  const url = new URL(baseUrl);
  // a base URL may carry a path (a proxy mount); API paths are appended to it
  const basePath = url.pathname.replace(/\/+$/, "");
  const bodyTimeout = options.bodyTimeoutMs ?? 30_000;
  const connection = {
    connections: options.connections ?? 16,
    connect: { timeout: options.connectTimeoutMs ?? 10_000 },
    headersTimeout: bodyTimeout,
    bodyTimeout,
    maxResponseSize: options.maxBodyBytes ?? MAX_BODY_BYTES,
  };
  const pool: Dispatcher = proxyInUse(options.proxy)
    ? proxyDispatcher(options.proxy, connection)
    : new Pool(url.origin, connection);
  return {
    async send(request) {
      const response = await pool.request({
        origin: url.origin,
        method: request.method,
        path: `${basePath}${request.path}`,
        headers: request.headers,
        body: request.body,
      });
      const body = Buffer.from(await response.body.arrayBuffer());
      return { status: response.statusCode, headers: flatHeaders(response.headers), body };
    },
    close: () => pool.close(),
  };
}
