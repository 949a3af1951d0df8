/**
 * `npm run bench`: every benchmark in one process, one after the other (they would disturb each
 * other's timings in parallel), printed as JSON and written to bench/results.json.
 * Each figure is from this one run; compare ratios inside a run, not across machines.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { arch, cpus, platform, totalmem } from "node:os";
import { join } from "node:path";
import { runAckBench } from "./ack.ts";
import { runAskBench } from "./ask.ts";
import { runAuditExportBench } from "./audit-export.ts";
import { runCardActionBench } from "./card-actions.ts";
import { runChangeBench } from "./change.ts";
import { runClientBench } from "./client.ts";
import { runEdgeBench } from "./edge.ts";
import { runFailoverBench } from "./failover.ts";
import { runFencedTransactionBench } from "./fenced-transaction.ts";
import { runMentionBench } from "./mention.ts";
import { runPollBench } from "./poll.ts";
import { runRadarBench } from "./radar.ts";
import { runScaleBench } from "./scale.ts";
import { runSimulatorBench } from "./simulator.ts";
import { runWhyBench } from "./why.ts";

const only = process.argv.slice(2);
const benches: Array<[string, () => Promise<unknown>]> = [
  ["client", runClientBench],
  ["ack", runAckBench],
  ["actions", () => runCardActionBench()],
  ["mention", () => runMentionBench()],
  ["change", () => runChangeBench()],
  ["why", () => runWhyBench()],
  // the assistant (issue 33): 20 questions at once, the scripted model answering in 500 ms
  ["ask", () => runAskBench()],
  ["poll", runPollBench],
  ["simulator", runSimulatorBench],
  // minutes, not seconds: run it alone with `npm run bench -- scale`
  // SCALE_FLEETS=50000 measures one fleet size alone
  [
    "scale",
    () =>
      runScaleBench(
        process.env.SCALE_FLEETS ? process.env.SCALE_FLEETS.split(",").map(Number) : undefined,
      ),
  ],
  // two to three minutes: three replicas on PostgreSQL, the leader killed ten times
  ["failover", runFailoverBench],
  // ten minutes or more: `npm run bench -- radar` (RADAR_FLEETS=10000 for one size)
  [
    "radar",
    () =>
      runRadarBench(
        process.env.RADAR_FLEETS ? process.env.RADAR_FLEETS.split(",").map(Number) : undefined,
      ),
  ],
  // the edge fleet's read (issue 39): 10,000 edge hosts beside 10,000 clusters
  ["edge", () => runEdgeBench()],
  // minutes: the largest audit export allowed (AUDIT_BENCH_ENTRIES=100000 for a smaller one)
  ["audit-export", () => runAuditExportBench()],
  // a minute or two: the longest fenced transaction at 50,000 clusters on PostgreSQL against the
  // lease's margin (FENCED_BENCH_CLUSTERS for another fleet)
  ["fenced-transaction", () => runFencedTransactionBench()],
];

// a run of some figures keeps the others' last results, so the benchmarks table (docs/benchmarks.md) stays whole
const resultsPath = join(import.meta.dirname, "results.json");
const previous: Record<string, unknown> =
  only.length > 0 && existsSync(resultsPath) ? JSON.parse(readFileSync(resultsPath, "utf8")) : {};
const results: Record<string, unknown> = {
  ...previous,
  machine: {
    node: process.version,
    platform: `${platform()} ${arch()}`,
    cpus: `${cpus().length} × ${cpus()[0]?.model ?? "unknown"}`,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
  },
  // the date of the last full run; partial runs date their own figures (measuredAt)
  at: typeof previous.at === "string" ? previous.at : new Date().toISOString(),
};

for (const [name, run] of benches) {
  if (only.length > 0 && !only.includes(name)) continue;
  process.stderr.write(`bench: ${name}…\n`);
  const figure = await run();
  // each figure says when it was measured: a partial run keeps the others' older figures
  results[name] =
    typeof figure === "object" && figure !== null
      ? { ...figure, measuredAt: new Date().toISOString() }
      : figure;
}

const json = JSON.stringify(results, null, 2);
process.stdout.write(`${json}\n`);
writeFileSync(resultsPath, `${json}\n`);
process.exit(0);
