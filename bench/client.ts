/**
 * Benchmark of the Palette client's full fleet scan: `searchAllClusters` over the in-process
 * simulator (which enforces the documented rate limits) at 1,000 and 10,000 clusters.
 * Prints JSON. Run alone with `npx tsx bench/client.ts`, or call `runClientBench()`.
 */
import { pathToFileURL } from "node:url";
import { silentLogger } from "../src/log.ts";
import { createPaletteClient } from "../src/palette/client.ts";
import { Secret } from "../src/secret.ts";
import { startSimulator } from "../src/simulator/server.ts";

const SEARCH = "/v1/dashboard/spectroclusters/search";
const DASHBOARD_PER_SECOND = 10;

export interface ClientScanFigures {
  clusters: number;
  clustersSeen: number;
  /** search requests the simulator served */
  paletteCalls: number;
  /** ceil(clusters / 50) */
  expectedPages: number;
  callsEqualPages: boolean;
  wallMs: number;
  peakRssMb: number;
  /** pages / 10 per s: the least time the documented /v1/dashboard limit allows */
  rateLimitFloorMs: number;
  /** most requests the client sent to /v1/dashboard within any one-second window */
  maxRequestsInAnySecond: number;
  /** 429 answers from the simulator, which enforces the documented limits */
  rateLimited: number;
  limiterHeld: boolean;
}

export interface ClientBenchResult {
  bench: "client";
  node: string;
  runs: ClientScanFigures[];
}

function maxInWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while (sorted[end]! - sorted[start]! >= windowMs) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

async function scan(clusters: number): Promise<ClientScanFigures> {
  const sim = await startSimulator({ clusters, projects: 1, seed: 11, enforceRateLimits: true });
  const sentAt: number[] = [];
  const palette = createPaletteClient({
    baseUrl: sim.url,
    credentials: { kind: "apiKey", apiKey: new Secret(sim.credentials.apiKey) },
    logger: silentLogger,
    onEvent: (event) => {
      if (event.type === "request" && event.prefix === "/v1/dashboard") {
        sentAt.push(performance.now() - event.durationMs);
      }
    },
  });
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 25);
  try {
    sim.control.clearRequests();
    const started = performance.now();
    let seen = 0;
    for await (const _cluster of palette.searchAllClusters({})) seen++;
    const wallMs = Math.round(performance.now() - started);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    const searches = sim.control.requests().filter((r) => r.method === "POST" && r.path === SEARCH);
    const rateLimited = searches.filter((r) => r.status === 429).length;
    const expectedPages = Math.ceil(clusters / 50);
    const maxRequestsInAnySecond = maxInWindow(sentAt, 1000);
    return {
      clusters,
      clustersSeen: seen,
      paletteCalls: searches.length,
      expectedPages,
      callsEqualPages: searches.length === expectedPages,
      wallMs,
      peakRssMb: Math.round((peakRss / 1024 / 1024) * 10) / 10,
      rateLimitFloorMs: (expectedPages / DASHBOARD_PER_SECOND) * 1000,
      maxRequestsInAnySecond,
      rateLimited,
      limiterHeld: rateLimited === 0 && maxRequestsInAnySecond <= DASHBOARD_PER_SECOND,
    };
  } finally {
    clearInterval(sampler);
    await palette.close();
    await sim.close();
  }
}

export async function runClientBench(
  sizes: number[] = [1_000, 10_000],
): Promise<ClientBenchResult> {
  const runs: ClientScanFigures[] = [];
  for (const size of sizes) runs.push(await scan(size));
  return { bench: "client", node: process.version, runs };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runClientBench()
    .then((result) => {
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    })
    .catch((error: unknown) => {
      process.stderr.write(`bench/client failed: ${String(error)}\n`);
      process.exitCode = 1;
    });
}
