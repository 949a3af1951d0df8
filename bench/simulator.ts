/**
 * Benchmark of the simulator at fleet scale: how long a 50,000-cluster fleet takes to generate
 * and to start serving, what one search page and one name look-up cost over HTTP with the real
 * client, and what a minute of churn costs to apply. Prints JSON. Run alone with
 * `npx tsx bench/simulator.ts`, or call `runSimulatorBench()`.
 */
import { pathToFileURL } from "node:url";
import { ManualClock } from "../src/clock.ts";
import { silentLogger } from "../src/log.ts";
import { createPaletteClient } from "../src/palette/client.ts";
import { Secret } from "../src/secret.ts";
import { generateFleet } from "../src/simulator/fleet.ts";
import { startSimulator } from "../src/simulator/server.ts";

const CLUSTERS = 50_000;
const PROJECTS = 5;
const GENERATION_BUDGET_MS = 2_000;
const CHURN_PER_MINUTE = 600;

export interface SimulatorBenchResult {
  bench: "simulator";
  node: string;
  clusters: number;
  projects: number;
  /** generateFleet alone, best and median of 5 */
  generateBestMs: number;
  generateMedianMs: number;
  withinBudget: boolean;
  budgetMs: number;
  /** startSimulator until it listens (generation included) */
  startMs: number;
  /** the soft-deleted clusters seeded besides the fleet */
  softDeleted: number;
  /** one tenant-scope search page (50 items), median of 5 */
  searchPageMs: number;
  /** a name look-up: one search with the clusterName condition, median of 5 */
  nameLookupMs: number;
  /** a minute of churn at CHURN_PER_MINUTE, applied by the next request */
  churnMinuteMs: number;
  churnPerMinute: number;
  heapUsedMb: number;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};
const round = (ms: number): number => Math.round(ms * 10) / 10;

async function timed(action: () => Promise<unknown> | unknown): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

export async function runSimulatorBench(): Promise<SimulatorBenchResult> {
  generateFleet({ clusters: 1_000, projects: PROJECTS, seed: 1, now: Date.now() }); // warm-up
  const generations: number[] = [];
  for (let run = 0; run < 5; run++) {
    generations.push(
      await timed(() =>
        generateFleet({ clusters: CLUSTERS, projects: PROJECTS, seed: 1, now: Date.now() }),
      ),
    );
  }

  const clock = new ManualClock(Date.now());
  let sim: Awaited<ReturnType<typeof startSimulator>> | undefined;
  const startMs = await timed(async () => {
    sim = await startSimulator({
      clusters: CLUSTERS,
      projects: PROJECTS,
      seed: 1,
      clock,
      churnPerMinute: CHURN_PER_MINUTE,
    });
  });
  const running = sim!;
  const palette = createPaletteClient({
    baseUrl: running.url,
    credentials: { kind: "apiKey", apiKey: new Secret(running.credentials.apiKey) },
    logger: silentLogger,
    rateLimit: false,
  });
  try {
    const liveName = running.control.clusters()[0]?.name ?? "";
    const pages: number[] = [];
    const lookups: number[] = [];
    for (let run = 0; run < 5; run++) {
      pages.push(await timed(() => palette.searchClusters({ limit: 50 })));
      lookups.push(await timed(() => palette.searchClusters({ name: liveName })));
    }
    clock.advance(60_000);
    const churnMinuteMs = await timed(() => palette.searchClusters({ name: liveName }));
    const softDeleted =
      running.control.clusters(undefined, { includeDeleted: true }).length -
      running.control.clusters().length;
    return {
      bench: "simulator",
      node: process.version,
      clusters: CLUSTERS,
      projects: PROJECTS,
      generateBestMs: round(Math.min(...generations)),
      generateMedianMs: round(median(generations)),
      withinBudget: median(generations) < GENERATION_BUDGET_MS,
      budgetMs: GENERATION_BUDGET_MS,
      startMs: round(startMs),
      softDeleted,
      searchPageMs: round(median(pages)),
      nameLookupMs: round(median(lookups)),
      churnMinuteMs: round(churnMinuteMs),
      churnPerMinute: CHURN_PER_MINUTE,
      heapUsedMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
    };
  } finally {
    await palette.close();
    await running.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runSimulatorBench()
    .then((result) => {
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      process.exit(0);
    })
    .catch((error: unknown) => {
      process.stderr.write(`${String(error)}\n`);
      process.exit(1);
    });
}
