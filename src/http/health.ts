import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../log.ts";
import type { Metrics } from "./metrics.ts";
import { type HttpRoute, sendJson } from "./routes.ts";

/**
 * Liveness, readiness and metrics: the probes, the readiness report and the route table. In HTTP
 * mode the Slack receiver serves the routes beside `/slack/events`; in Socket Mode the small server
 * in server.ts serves the same table.
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

/** Who leads, as `/readyz` shows it (issue 12: replicas and the leader lease). */
export interface LeaderReport {
  /** "unknown" when the lease could not be read */
  role: "leader" | "follower" | "unknown";
  /** this replica's holder id (host name, pid, random) */
  replica?: string;
  /** the live lease's holder; absent when nobody holds it */
  leader?: string;
  /** the live lease's fencing token */
  token?: number;
  leaseExpiresInSeconds?: number;
  reason?: string;
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
  /** who leads, shown in `/readyz`; never a reason to be unready (a follower serves commands) */
  leader?: () => LeaderReport | Promise<LeaderReport>;
}

export interface ReadinessReport {
  ready: boolean;
  /** advisory probes that fail (they do not make `ready` false) */
  degraded: string[];
  /** every probe: "ok" or the reason it fails */
  checks: Record<string, string>;
  leader?: LeaderReport;
}

export interface Health {
  /** `/healthz`, `/readyz`, `/metrics` */
  routes: HttpRoute[];
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

async function leaderReport(
  read: NonNullable<HealthOptions["leader"]>,
  timeoutMs: number,
): Promise<LeaderReport> {
  let report: LeaderReport | undefined;
  const answer = await runProbe(async () => {
    report = await read();
    return true;
  }, timeoutMs);
  const why = (answer.reason ?? "failing").replace(/^probe threw: /, "");
  return report ?? { role: "unknown", reason: `lease not readable: ${why}` };
}

const leaderPart = (report: ReadinessReport) => (report.leader ? { leader: report.leader } : {});

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
    const report: ReadinessReport = {
      ready: !draining && failed.length === degraded.length,
      degraded,
      checks,
    };
    if (options.leader) report.leader = await leaderReport(options.leader, timeoutMs);
    return report;
  };

  // Handlers never throw: a throw in a receiver route becomes an unhandled rejection.
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

  const routes: HttpRoute[] = [
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
          sendJson(res, 200, { status, checks: report.checks, ...leaderPart(report) });
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
        sendJson(res, 503, {
          status: "not ready",
          reason,
          failing,
          checks: report.checks,
          ...leaderPart(report),
        });
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
