/**
 * `npm run chaos` (about four minutes): the chaos run with the figures, printed as JSON and
 * kept in bench/results.json under `chaos`. `npm run chaos -- --short` runs the under-a-minute
 * variant that `npm test` also runs.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FULL_RUN, runChaos, SHORT_RUN } from "./scenario.ts";

const short = process.argv.includes("--short");
// CHAOS_OPTIONS='{"kills":4,…}' overrides a run's options (for reading a failure quickly)
const overrides = JSON.parse(process.env.CHAOS_OPTIONS ?? "{}") as Partial<typeof FULL_RUN>;
const report = await runChaos({ ...(short ? SHORT_RUN : FULL_RUN), ...overrides }, (line) =>
  process.stderr.write(`${line}\n`),
);
const json = JSON.stringify(report, null, 2);
process.stdout.write(`${json}\n`);
if (!short) {
  const resultsPath = join(import.meta.dirname, "..", "results.json");
  const results = existsSync(resultsPath) ? JSON.parse(readFileSync(resultsPath, "utf8")) : {};
  results.chaos = { ...report, measuredAt: new Date().toISOString() };
  writeFileSync(resultsPath, `${JSON.stringify(results, null, 2)}\n`);
}
process.exit(0);
