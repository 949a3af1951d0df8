/**
 * Prints the benchmark page (docs/benchmarks.md) from bench/results.json, so the table is always one run's
 * figures: `npx tsx bench/readme-table.ts` after `npm run bench`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

interface Results {
  machine: { node: string; platform: string; cpus: string; memoryGiB: number };
  at: string;
  client: { runs: ClientRun[] };
  ack: {
    command: string;
    runsPerWidth: number;
    roundsPerRun: number;
    acksPerRoundPerSide: number;
    nodeFlags: string[];
    nodeOptions: string;
    widths: Record<string, AckWidth>;
  };
  poll: { runs: PollRun[] };
}
interface Latency {
  p50Ms: number;
  p99Ms: number;
  non200: number;
}
interface AckWidth {
  concurrency: number;
  ratioP99Median: number;
  ratioP99Runs: number[];
  ratioP50Median: number;
  runs: Array<{ bot: Latency; floor: Latency }>;
}
interface ClientRun {
  clusters: number;
  paletteCalls: number;
  expectedPages: number;
  wallMs: number;
  rateLimitFloorMs: number;
  peakRssMb: number;
  rateLimited: number;
}
interface PollRun {
  clusters: number;
  projects: number;
  callsPerCycle: number;
  minimumCalls: number;
  steadyCycleMs: number;
  rateLimitFloorMs: number;
  changeToSlackMs: number;
  peakRssMb: number;
  rateLimited: number;
}

const r = JSON.parse(readFileSync(join(import.meta.dirname, "results.json"), "utf8")) as Results;
const n = (value: number) => value.toLocaleString("en-US");
const lines = [
  `One run of \`npm run bench\` (${r.at.slice(0, 10)}, ${r.machine.cpus}, ${r.machine.memoryGiB} GiB, Node ${r.machine.node}; a shared, noisy machine: compare ratios within the run). Full JSON: [bench/results.json](../bench/results.json). The simulator enforces Palette's documented rate limits in every run.`,
  "",
  "**Full scan with the Palette client** (`bench/client.ts`): calls must equal pages; the floor is what 10 req/s on `/v1/dashboard` allows.",
  "",
  "| clusters | Palette calls | pages | wall time | rate-limit floor | peak RSS | 429s |",
  "|---|---|---|---|---|---|---|",
  ...r.client.runs.map(
    (run) =>
      `| ${n(run.clusters)} | ${n(run.paletteCalls)} | ${n(run.expectedPages)} | ${n(run.wallMs)} ms | ${n(run.rateLimitFloorMs)} ms | ${run.peakRssMb} MB | ${run.rateLimited} |`,
  ),
  "",
  `**Ack latency** (\`bench/ack.ts\`): signed \`${r.ack.command}\` against the bot and a bare Bolt app that only acks (the floor), both as the image runs the bot: their own processes, compiled, \`NODE_ENV=production\`, node ${r.ack.nodeFlags.join(" ")}, \`NODE_OPTIONS=${r.ack.nodeOptions}\`. A run is ${r.ack.roundsPerRun} paired rounds of ${r.ack.acksPerRoundPerSide} acks a side on fresh processes; the ratio is the median over ${r.ack.runsPerWidth} runs.`,
  "",
  "| burst width | p99 ratio, median | p99 ratio per run | p50 ratio, median | bot p99 / floor p99 (each run) | non-200 |",
  "|---|---|---|---|---|---|",
  ...Object.values(r.ack.widths).map(
    (width) =>
      `| ${width.concurrency} | ${width.ratioP99Median}× | ${width.ratioP99Runs.map((x) => `${x}×`).join(", ")} | ${width.ratioP50Median}× | ${width.runs.map((run) => `${run.bot.p99Ms}/${run.floor.p99Ms} ms`).join(", ")} | ${width.runs.reduce((sum, run) => sum + run.bot.non200 + run.floor.non200, 0)} |`,
  ),
  "",
  "**Poll cycle** (`bench/poll.ts`): calls per cycle against the minimum (search pages + one alerts call per project), cycle time against the rate-limit floor, and the time from a change in Palette to the Slack message (excluding the wait for the next tick).",
  "",
  "| clusters | projects | calls/cycle | minimum | cycle | floor | change → Slack | peak RSS | 429s |",
  "|---|---|---|---|---|---|---|---|---|",
  ...r.poll.runs.map(
    (run) =>
      `| ${n(run.clusters)} | ${run.projects} | ${n(run.callsPerCycle)} | ${n(run.minimumCalls)} | ${n(run.steadyCycleMs)} ms | ${n(run.rateLimitFloorMs)} ms | ${n(run.changeToSlackMs)} ms | ${run.peakRssMb} MB | ${run.rateLimited} |`,
  ),
];
process.stdout.write(`${lines.join("\n")}\n`);
