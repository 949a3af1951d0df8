import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { CustomRoute } from "@slack/bolt";
import type { Logger } from "../log.ts";
import type { Metrics } from "./metrics.ts";

/**
 * Liveness, readiness and metrics over HTTP. The routes are plain Bolt `CustomRoute`s so the
 * Slack receivers (HTTP and Socket Mode) serve them on their own port, and `startHttpServer`
 * serves the very same handlers where no receiver runs (console, simulator-backed demo).
 */

export interface ProbeResult {
  ok: boolean;
  /** why not ready; shown in `/readyz` and so must hold no secret */
  reason?: string;
}

/** A readiness check. Throwing or taking longer than the timeout counts as failing. */
export type Probe = () => boolean | ProbeResult | Promise<boolean | ProbeResult>;

export interface HealthProbes {
  /** the SQLite store answers (e.g. `SELECT 1`) */
  store?: Probe;
  /** Palette credentials were accepted within the last poll cycle */
  palette?: Probe;
  /** Slack `auth.test` passed */
  slack?: Probe;
  [name: string]: Probe | undefined;
}

export interface HealthOptions {
  probes: HealthProbes;
  metrics: Metrics;
  /**
   * Probes that are reported but do not fail readiness. With one replica, a failing readiness
   * probe takes the bot out of its Service, so Slack cannot reach it even to hear "Palette is
   * down"; list `palette` here when that matters more than traffic shedding.
   */
  advisory?: readonly string[];
  /** per probe; default 2000 ms (Kubernetes' default probe timeout is 1 s, retried) */
  probeTimeoutMs?: number;
  logger?: Logger;
}

export interface ReadinessReport {
  ready: boolean;
  /** advisory probes that fail (they do not make `ready` false) */
  degraded: string[];
  /** every probe: "ok" or the reason it fails */
  checks: Record<string, string>;
}

export interface Health {
  /** `/healthz`, `/readyz`, `/metrics` as Bolt custom routes */
  routes: CustomRoute[];
  readiness(): Promise<ReadinessReport>;
  /** on shutdown: `/readyz` answers 503 so no new traffic comes while we drain */
  setDraining(): void;
}

export const HEALTH_PATHS = { live: "/healthz", ready: "/readyz", metrics: "/metrics" } as const;

const REASON_MAX = 200;

/** Reasons come from error messages; cut them short and blank anything shaped like a token. */
function safeReason(reason: string): string {
  const cleaned = reason
    .replace(/\bx(?:ox[a-z]|app)-[A-Za-z0-9-]+/g, "[redacted]")
    .replace(/[\r\n]+/g, " ")
    .trim();
  return cleaned.length > REASON_MAX ? `${cleaned.slice(0, REASON_MAX - 1)}…` : cleaned;
}

async function runProbe(probe: Probe, timeoutMs: number): Promise<ProbeResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<ProbeResult>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, reason: `no answer in ${timeoutMs} ms` }),
      timeoutMs,
    );
    timer.unref();
  });
  try {
    const answer = await Promise.race([Promise.resolve().then(probe), timeout]);
    if (typeof answer === "boolean")
      return answer ? { ok: true } : { ok: false, reason: "failing" };
    return answer.ok
      ? { ok: true }
      : { ok: false, reason: safeReason(answer.reason ?? "failing") || "failing" };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, reason: safeReason(`probe threw: ${message}`) };
  } finally {
    clearTimeout(timer);
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

export function createHealth(options: HealthOptions): Health {
  const timeoutMs = options.probeTimeoutMs ?? 2000;
  const probes = Object.entries(options.probes).filter(
    (entry): entry is [string, Probe] => entry[1] !== undefined,
  );
  const advisory = new Set(options.advisory ?? []);
  let draining = false;

  const readiness = async (): Promise<ReadinessReport> => {
    const results = await Promise.all(
      probes.map(async ([name, probe]) => [name, await runProbe(probe, timeoutMs)] as const),
    );
    const checks: Record<string, string> = {};
    for (const [name, result] of results) checks[name] = result.ok ? "ok" : result.reason!;
    if (draining) checks.shutdown = "shutting down";
    const failed = results.filter(([, result]) => !result.ok).map(([name]) => name);
    const degraded = failed.filter((name) => advisory.has(name));
    return { ready: !draining && failed.length === degraded.length, degraded, checks };
  };

  // Handlers never throw: Bolt would turn a throw into an unhandled rejection.
  const guard =
    (handler: (res: ServerResponse) => Promise<void> | void) =>
    (_req: IncomingMessage, res: ServerResponse): void => {
      Promise.resolve()
        .then(() => handler(res))
        .catch((error: unknown) => {
          options.logger?.error({ err: error }, "health endpoint failed");
          if (!res.headersSent) sendJson(res, 500, { status: "error" });
          else res.end();
        });
    };

  const routes: CustomRoute[] = [
    {
      path: HEALTH_PATHS.live,
      method: ["GET"],
      handler: guard((res) => sendJson(res, 200, { status: "ok" })),
    },
    {
      path: HEALTH_PATHS.ready,
      method: ["GET"],
      handler: guard(async (res) => {
        const report = await readiness();
        if (report.ready) {
          const status = report.degraded.length > 0 ? "degraded" : "ready";
          sendJson(res, 200, { status, checks: report.checks });
          return;
        }
        const failing = Object.fromEntries(
          Object.entries(report.checks).filter(
            ([name, value]) => value !== "ok" && !report.degraded.includes(name),
          ),
        );
        const reason = Object.entries(failing)
          .map(([name, why]) => `${name}: ${why}`)
          .join("; ");
        sendJson(res, 503, { status: "not ready", reason, failing, checks: report.checks });
      }),
    },
    {
      path: HEALTH_PATHS.metrics,
      method: ["GET"],
      handler: guard(async (res) => {
        const text = await options.metrics.render();
        res.writeHead(200, {
          "content-type": options.metrics.contentType,
          "cache-control": "no-store",
        });
        res.end(text);
      }),
    },
  ];

  return {
    routes,
    readiness,
    setDraining: () => {
      draining = true;
    },
  };
}

export interface RunningHttpServer {
  /** `http://host:port` */
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

/**
 * Serves `routes` (exact paths; Bolt-style `:params` are not needed here) with node:http, for
 * the modes without a Slack receiver. Unknown paths get 404, known paths with another method 405.
 */
export async function startHttpServer(
  port: number,
  routes: CustomRoute[],
  host = "0.0.0.0",
): Promise<RunningHttpServer> {
  const table = new Map<string, Map<string, CustomRoute["handler"]>>();
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
