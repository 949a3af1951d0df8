/**
 * How long the simulator takes to generate a seeded fleet (the demo, the tests and the scale
 * benchmarks all start from one). Median of three runs per size, after a warm-up.
 * `npm run bench -- fleet`.
 */
import { generateFleet } from "../src/simulator/fleet.ts";

const SIZES = [1_000, 10_000, 50_000];
const NOW = Date.UTC(2026, 10, 1);

export async function runFleetBench(): Promise<unknown> {
  generateFleet({ clusters: 500, projects: 3, seed: 1, now: NOW });
  const rows = SIZES.map((clusters) => {
    const times = [1, 2, 3].map((seed) => {
      const started = performance.now();
      const fleet = generateFleet({ clusters, projects: 3, seed, now: NOW });
      const ms = performance.now() - started;
      if (fleet.clusters.length !== clusters) throw new Error("fleet size mismatch");
      return ms;
    });
    times.sort((a, b) => a - b);
    return { clusters, medianMs: Math.round(times[1]! * 10) / 10 };
  });
  return { generate: rows };
}
