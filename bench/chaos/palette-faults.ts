import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { createRng } from "../../src/simulator/prng.ts";

/**
 * A proxy in front of the Palette simulator that misbehaves the way a busy Palette and a flaky
 * network do: a share of requests get a 429 with Retry-After, a 5xx, a reset connection or two
 * seconds of latency, and a share of cluster listings come back one cluster short. A search for
 * one name keeps its items: a gap there cannot be seen by anyone, bot or user, so it would score
 * Palette's answer, not the bot's.
 */

export interface PaletteFaultOptions {
  /** the simulator's base URL */
  target: string;
  /** share of requests that get one of the four faults (equal parts) */
  faultRate: number;
  /** share of cluster search pages (with 2+ items) that lose one item */
  gapRate: number;
  seed: number;
  latencyMs?: number;
}

export interface PaletteFaultCounts {
  requests: number;
  rateLimited: number;
  serverErrors: number;
  resets: number;
  slow: number;
  gaps: number;
}

export interface PaletteFaults {
  url: string;
  counts(): PaletteFaultCounts;
  /** faults off (the drain at the end of a run measures delivery, not luck) */
  setEnabled(enabled: boolean): void;
  close(): Promise<void>;
}

const SEARCH = "/v1/dashboard/spectroclusters/search";
const HOP_HEADERS = new Set(["host", "connection", "content-length", "transfer-encoding"]);

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function errorBody(status: number, code: string): string {
  return JSON.stringify({ code, message: "injected by the chaos suite", ref: "chaos", status });
}

export async function startPaletteFaults(options: PaletteFaultOptions): Promise<PaletteFaults> {
  const rng = createRng(options.seed);
  const random = () => rng.next();
  const latencyMs = options.latencyMs ?? 2_000;
  const counts: PaletteFaultCounts = {
    requests: 0,
    rateLimited: 0,
    serverErrors: 0,
    resets: 0,
    slow: 0,
    gaps: 0,
  };
  let enabled = true;

  async function forward(req: IncomingMessage, res: ServerResponse, body: Buffer) {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string" && !HOP_HEADERS.has(name)) headers[name] = value;
    }
    const answer = await request(`${options.target}${req.url ?? "/"}`, {
      method: (req.method ?? "GET") as "GET",
      headers,
      body: body.length > 0 ? body : undefined,
    });
    let payload = Buffer.from(await answer.body.arrayBuffer());
    const path = (req.url ?? "").split("?")[0];
    const listing = path === SEARCH && !body.toString("utf8").includes('"clusterName"');
    if (enabled && listing && answer.statusCode === 200 && random() < options.gapRate) {
      const parsed = JSON.parse(payload.toString("utf8")) as { items?: unknown[] };
      if (Array.isArray(parsed.items) && parsed.items.length > 1) {
        parsed.items.splice(Math.floor(random() * parsed.items.length), 1);
        payload = Buffer.from(JSON.stringify(parsed));
        counts.gaps += 1;
      }
    }
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      if (typeof value === "string" && !HOP_HEADERS.has(name)) out[name] = value;
    }
    res.writeHead(answer.statusCode, out);
    res.end(payload);
  }

  const server = createServer(async (req, res) => {
    counts.requests += 1;
    try {
      const body = await readBody(req);
      const roll = enabled ? random() : 1;
      if (roll < options.faultRate) {
        const kind = Math.floor((roll / options.faultRate) * 4);
        if (kind === 0) {
          counts.rateLimited += 1;
          res.writeHead(429, { "content-type": "application/json", "retry-after": "1" });
          res.end(errorBody(429, "TooManyRequests"));
          return;
        }
        if (kind === 1) {
          counts.serverErrors += 1;
          res.writeHead(503, { "content-type": "application/json" });
          res.end(errorBody(503, "ServiceUnavailable"));
          return;
        }
        if (kind === 2) {
          counts.resets += 1;
          req.socket.destroy();
          return;
        }
        counts.slow += 1;
        await new Promise((resolve) => setTimeout(resolve, latencyMs));
      }
      await forward(req, res, body);
    } catch {
      if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
      res.end(errorBody(502, "BadGateway"));
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts: () => ({ ...counts }),
    setEnabled(value) {
      enabled = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
