import { Writable } from "node:stream";
import { createLogger, type Logger, silentLogger } from "../../src/log.ts";
import {
  createPaletteClient,
  type PaletteClient,
  type PaletteClientOptions,
} from "../../src/palette/client.ts";
import { createUndiciTransport, type Transport } from "../../src/palette/http.ts";
import { Secret } from "../../src/secret.ts";
import type { FleetCluster, RunningSimulator } from "../../src/simulator/types.ts";
import { readFixtureJson } from "./fixtures.ts";

/** A pino logger whose lines land in an array, so tests can read what was logged. */
export function collectingLogger(level = "debug"): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  return { logger: createLogger(level, sink), lines };
}

/** The real undici transport, with every credential header it sends noted down. */
export function recordingTransport(baseUrl: string): {
  transport: Transport;
  secretsSent: Set<string>;
} {
  const inner = createUndiciTransport(baseUrl);
  const secretsSent = new Set<string>();
  return {
    secretsSent,
    transport: {
      send(request) {
        for (const name of ["Authorization", "apiKey"]) {
          const value = request.headers[name];
          if (value) secretsSent.add(value);
        }
        return inner.send(request);
      },
      close: () => inner.close(),
    },
  };
}

export function apiKeyClient(
  sim: RunningSimulator,
  extra: Partial<PaletteClientOptions> = {},
): PaletteClient {
  return createPaletteClient({
    baseUrl: sim.url,
    credentials: { kind: "apiKey", apiKey: new Secret(sim.credentials.apiKey) },
    logger: silentLogger,
    backoff: { baseMs: 5, maxMs: 20 },
    ...extra,
  });
}

export function serviceAccountClient(
  sim: RunningSimulator,
  extra: Partial<PaletteClientOptions> = {},
): PaletteClient {
  return createPaletteClient({
    baseUrl: sim.url,
    credentials: {
      kind: "serviceAccount",
      email: sim.credentials.email,
      org: sim.credentials.org,
      password: new Secret(sim.credentials.password),
    },
    logger: silentLogger,
    backoff: { baseMs: 5, maxMs: 20 },
    ...extra,
  });
}

export function countRequests(sim: RunningSimulator, method: string, path: string): number {
  return sim.control.requests().filter((r) => r.method === method && r.path === path).length;
}

/** The documented aws create body (test/fixtures/palette-api/examples), renamed. */
export function awsCreateBody(name: string): Record<string, unknown> {
  const body = readFixtureJson<{ metadata: Record<string, unknown> } & Record<string, unknown>>(
    "palette-api",
    "examples",
    "spectroclusters-aws.create.request.json",
  );
  return { ...body, metadata: { ...body.metadata, name } };
}

/**
 * A Running cluster whose name is used once in the fleet and is plain (letters, digits, `-`):
 * a command by name then finds exactly it, with no "pick one of" answer.
 */
export function uniqueRunningCluster(sim: RunningSimulator, projectUid?: string): FleetCluster {
  const uses = new Map<string, number>();
  for (const c of sim.control.clusters()) uses.set(c.name, (uses.get(c.name) ?? 0) + 1);
  const found = sim.control
    .clusters(projectUid)
    .find((c) => c.state === "Running" && uses.get(c.name) === 1 && /^[a-z0-9-]+$/.test(c.name));
  if (!found)
    throw new Error("the simulated fleet has no Running cluster with a unique plain name");
  return found;
}
