import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type HttpRoute, sendJson } from "./routes.ts";

export interface RunningHttpServer {
  /** `http://host:port` */
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

/**
 * Serves `routes` (exact paths) with node:http where no Slack receiver listens: Socket Mode needs
 * no port for Slack, but probes and scrapers still need one. Bolt's SocketModeReceiver can serve
 * routes only on a port fixed at construction, so this server takes the port given at start (0
 * allowed). Unknown paths get 404, known paths with another method 405.
 */
export async function startHttpServer(
  port: number,
  routes: readonly HttpRoute[],
  host = "0.0.0.0",
): Promise<RunningHttpServer> {
  const table = new Map<string, Map<string, HttpRoute["handler"]>>();
  for (const route of routes) {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const byMethod = table.get(route.path) ?? new Map();
    for (const method of methods) byMethod.set(method.toUpperCase(), route.handler);
    table.set(route.path, byMethod);
  }

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const byMethod = table.get(path);
    if (!byMethod) {
      sendJson(res, 404, { status: "not found" });
      return;
    }
    const method = (req.method ?? "GET").toUpperCase();
    // HEAD is GET without a body; node:http drops the body for us.
    const handler = byMethod.get(method) ?? (method === "HEAD" ? byMethod.get("GET") : undefined);
    if (!handler) {
      res.setHeader("allow", [...byMethod.keys()].join(", "));
      sendJson(res, 405, { status: "method not allowed" });
      return;
    }
    handler(req, res);
  });
  server.listen(port, host);
  await once(server, "listening");
  const address = server.address() as AddressInfo;
  const shownHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;

  return {
    url: `http://${shownHost}:${address.port}`,
    port: address.port,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}
