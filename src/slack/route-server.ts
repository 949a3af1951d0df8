import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { CustomRoute } from "@slack/bolt";
import type { Logger } from "../log.ts";

/**
 * Socket Mode needs no HTTP server for Slack, but /healthz, /readyz and /metrics still need a
 * port. Bolt's SocketModeReceiver can serve custom routes only on a port fixed at construction,
 * so this small server serves them on the port given to `start` (0 allowed). Paths match exactly.
 */
export async function startRouteServer(
  routes: CustomRoute[],
  port: number,
  logger: Logger,
): Promise<{ port: number; server: Server }> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const method = (req.method ?? "GET").toUpperCase();
    const route = routes.find((candidate) => {
      const methods = [candidate.method].flat().map((m) => m.toUpperCase());
      return candidate.path === path && methods.includes(method);
    });
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    try {
      route.handler(Object.assign(req, { params: {} }), res);
    } catch (error) {
      logger.error({ path, err: String(error) }, "custom route failed");
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  server.listen(port);
  await once(server, "listening");
  return { port: (server.address() as AddressInfo).port, server };
}
