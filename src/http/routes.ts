import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * One HTTP route: an exact path, its methods and a handler that never throws. The shape matches
 * Bolt's custom routes, so the HTTP-mode receiver can serve the same table as server.ts.
 */
export interface HttpRoute {
  path: string;
  method: string | string[];
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}
