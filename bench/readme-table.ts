/**
 * Prints the README's benchmark section from bench/results.json, so the table is always one run's
 * figures: `npx tsx bench/readme-table.ts` after `npm run bench`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

interface Results {
  machine: { node: string; platform: string; cpus: string; memoryGiB: number };
  at: string;
  client: { runs: ClientRun[] };
  ack: {
    requests: number;
    concurrency: number;
    bot: Latency;
    floor: Latency;
    ratioP50: number;
    ratioP99: number;
    allAnsweredWithinMs: number;
  };
  poll: { runs: PollRun[] };
}
interface Latency {
  p50Ms: number;
  p99Ms: number;
  non200: number;
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
  `One run of \`npm run bench\` (${r.at.slice(0, 10)}, ${r.machine.cpus}, ${r.machine.memoryGiB} GiB, Node ${r.machine.node}; a shared, noisy machine: compare ratios within the run). Full JSON: [bench/results.json](bench/results.json). The simulator enforces Palette's documented rate limits in every run.`,
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
  `**Ack latency** (\`bench/ack.ts\`): ${r.ack.requests} signed \`/palette clusters\`, ${r.ack.concurrency} at a time, against the bot and, in the same run, a bare Bolt app that only acks (the floor).`,
  "",
  "| | p50 | p99 | non-200 |",
  "|---|---|---|---|",
  `| bot | ${r.ack.bot.p50Ms} ms | ${r.ack.bot.p99Ms} ms | ${r.ack.bot.non200} |`,
  `| bare Bolt (floor) | ${r.ack.floor.p50Ms} ms | ${r.ack.floor.p99Ms} ms | ${r.ack.floor.non200} |`,
  `| ratio | ${r.ack.ratioP50}× | ${r.ack.ratioP99}× | |`,
  "",
  `Every answer reached its response_url within ${n(r.ack.allAnsweredWithinMs)} ms; Slack's budget for the ack is 3,000 ms.`,
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
