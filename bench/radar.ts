/**
 * The radar at fleet scale (`npm run bench -- radar`; RADAR_FLEETS=10000 for one size): the bot
 * as its own process (compiled, `node dist/main.js start`, HTTP mode, the image's node settings)
 * against the simulator with 10,000 and 50,000 clusters in 3 projects, Palette's documented rate
 * limits enforced, POLL_SCHEDULE every 30 s, RECONCILE_SCHEDULE every 2 minutes, 1,000 repaves
 * pending (RADAR_REPAVES) and two channels subscribed to `risks`. Each fleet runs with the radar
 * at its default (RADAR_CALLS_PER_MINUTE unset: the pace follows the fleet, one pass a day) and
 * with it off (0), so the poll's calls per cycle can be compared (RADAR_RATES: `default`, a
 * number, 0). Measured: the sweep's requests per minute (the requests to its three paths the
 * simulator served, over the window after the first listing), the time for every cluster to be
 * read once (extrapolated from that rate), the reconciliation's time and the radar's work after
 * it on the store (the bot's `poll_reconcile_last_seconds` and `radar_repaves_last_seconds`), the
 * poll's own calls per incremental cycle (its `poll_palette_calls` gauge), `/palette cluster
 * <name>` answer times while the sweep runs, and the bot's resident memory (median of 1 s
 * samples, and VmHWM).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { startSimulator } from "../src/simulator/server.ts";
import { startFakeSlack } from "../test/support/fake-slack.ts";
import { sampleValue } from "../test/support/prometheus.ts";
import { postSigned, slashCommandBody } from "../test/support/slack-request.ts";
import { freePort, spawnCli, until } from "../test/support/start-process-harness.ts";
import { buildBot } from "./compiled-bot.ts";
import { imageNodeFlags, imageNodeOptions } from "./image-node-options.ts";
import { mean } from "./percentiles.ts";
import { peakRssMb, rssMb } from "./process-memory.ts";

const PROJECTS = 3;
const SIGNING_SECRET = "radar-bench-signing-secret";
const CALLS_PER_CLUSTER = 3;
const RADAR_PATH = /\/(k8certificates|profileUpdates|features\/backup)$/;

export interface RadarRun {
  clusters: number;
  /** RADAR_CALLS_PER_MINUTE as set; "default" = unset (the pace follows the fleet) */
  radarCallsPerMinute: number | "default";
  /** the pace the bot reported (radar_requests_per_minute) */
  radarPacePerMinute: number;
  pendingRepaves: number;
  risksChannels: number;
  /** each reconciliation in the window: the full listing committed, and the radar's work after it */
  reconcileSeconds: number[];
  radarAfterReconcileSeconds: number[];
  /** the part of it on the store (Palette's pages of the list not counted) */
  radarAfterReconcileStoreSeconds: number[];
  /** seconds measured after the first listing */
  windowSeconds: number;
  /** the sweep's requests in the window */
  sweepCalls: number;
  /** the sweep's mean rate over the window */
  sweepCallsPerMinute: number;
  /** the most sweep requests in any 60 s of the window (5 s samples) */
  sweepMaxInAnyMinute: number;
  clustersReadInWindow: number;
  /** extrapolated from the measured rate: clusters ÷ (calls per minute ÷ 3) */
  hoursToReadEveryCluster: number;
  /** the poll's own Palette calls per incremental cycle (mean, and each) */
  pollCallsPerCycle: number;
  pollCycles: number[];
  /** `/palette cluster <name>` while the sweep runs */
  clusterCommand: { p50Ms: number; p99Ms: number; samples: number };
  botSteadyRssMb: number;
  botPeakRssMb: number;
  palette429s: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0);
};

const RISKS_CHANNELS = ["C0RISKS1", "C0RISKS2"];

async function measure(
  clusters: number,
  callsPerMinute: number | "default",
  windowMs: number,
  script: string,
): Promise<RadarRun> {
  const dir = mkdtempSync(join(tmpdir(), "radar-"));
  const sim = await startSimulator({
    clusters,
    projects: PROJECTS,
    seed: 42,
    enforceRateLimits: true,
    unhealthy: 0.01,
  });
  const fake = await startFakeSlack();
  const port = await freePort();
  const projects = sim.control.projects();
  const pendingRepaves = Math.min(clusters, Number(process.env.RADAR_REPAVES ?? 1_000));
  for (const cluster of sim.control.clusters().slice(0, pendingRepaves)) {
    sim.control.setRepavePending(cluster.uid, ["pack values changed"]);
  }
  const bot = spawnCli(
    ["start"],
    {
      SLACK_BOT_TOKEN: "xoxb-radar-bench",
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: fake.apiUrl,
      PALETTE_API_URL: sim.url,
      PALETTE_API_KEY: sim.credentials.apiKey,
      PALETTE_PROJECTS: projects.join(","),
      PORT: String(port),
      STATE_DB: join(dir, "radar.sqlite"),
      POLL_SCHEDULE: "*/30 * * * * *",
      RECONCILE_SCHEDULE: "0 */2 * * * *",
      ...(callsPerMinute === "default" ? {} : { RADAR_CALLS_PER_MINUTE: String(callsPerMinute) }),
      LOG_LEVEL: "warn",
      NODE_ENV: "production",
      NODE_OPTIONS: imageNodeOptions(),
    },
    { script, nodeArgs: imageNodeFlags() },
  );
  const botUrl = `http://127.0.0.1:${port}`;
  const metric = async (name: string) =>
    sampleValue(await (await fetch(`${botUrl}/metrics`)).text(), name) ?? 0;
  const pollsDone = () => metric('palette_chatops_poll_duration_seconds_count{outcome="ok"}');
  let sequence = 0;
  const command = async (text: string, channelId = "C0RADAR") => {
    const id = `radar-${++sequence}`;
    const sent = performance.now();
    await postSigned(
      `${botUrl}/slack/events`,
      SIGNING_SECRET,
      slashCommandBody({ text, channelId, responseUrl: `${fake.url}/response/${id}` }),
    );
    await until(
      "the answer",
      () => fake.callsTo("response").find((call) => call.body._responseId === id),
      30_000,
    );
    return performance.now() - sent;
  };
  const sweepCount = () => sim.control.requests().filter((r) => RADAR_PATH.test(r.path)).length;

  try {
    await until("the first poll", async () => (await pollsDone()) >= 1, 600_000);
    for (const channel of RISKS_CHANNELS) await command("subscribe risks", channel);
    const uses = new Map<string, number>();
    for (const cluster of sim.control.clusters()) {
      uses.set(cluster.name, (uses.get(cluster.name) ?? 0) + 1);
    }
    const names = [...uses].filter(([, n]) => n === 1).map(([name]) => name);
    const started = Date.now();
    const startCount = sweepCount();
    const samples: Array<{ at: number; count: number }> = [{ at: started, count: startCount }];
    const rss: number[] = [];
    const answers: number[] = [];
    const pollCycles: number[] = [];
    const reconcileSeconds: number[] = [];
    const radarAfterReconcileSeconds: number[] = [];
    const radarAfterReconcileStoreSeconds: number[] = [];
    // the first reconciliation (the first full listing) ended before the window: its figures count
    let lastReconcile = await metric("palette_chatops_poll_reconcile_last_seconds");
    let lastRadar = await metric("palette_chatops_radar_repaves_last_seconds");
    if (lastReconcile > 0) reconcileSeconds.push(lastReconcile);
    if (lastRadar > 0) {
      radarAfterReconcileSeconds.push(lastRadar);
      radarAfterReconcileStoreSeconds.push(
        await metric("palette_chatops_radar_repaves_store_last_seconds"),
      );
    }
    let pace = 0;
    let polls = await pollsDone();
    let nextCommand = started;
    while (Date.now() - started < windowMs) {
      await sleep(1_000);
      rss.push(rssMb(bot.child.pid!));
      if (samples.length === 0 || Date.now() - samples.at(-1)!.at >= 5_000) {
        samples.push({ at: Date.now(), count: sweepCount() });
      }
      const reconciled = await metric("palette_chatops_poll_reconcile_last_seconds");
      if (reconciled !== lastReconcile) {
        lastReconcile = reconciled;
        reconcileSeconds.push(reconciled);
      }
      const radarWork = await metric("palette_chatops_radar_repaves_last_seconds");
      if (radarWork !== lastRadar) {
        lastRadar = radarWork;
        radarAfterReconcileSeconds.push(radarWork);
        radarAfterReconcileStoreSeconds.push(
          await metric("palette_chatops_radar_repaves_store_last_seconds"),
        );
      }
      pace = (await metric("palette_chatops_radar_requests_per_minute")) || pace;
      const done = await pollsDone();
      if (done !== polls) {
        polls = done;
        pollCycles.push(await metric('palette_chatops_poll_palette_calls{kind="incremental"}'));
      }
      if (Date.now() >= nextCommand) {
        answers.push(await command(`cluster ${names[(answers.length * 97) % names.length]}`));
        nextCommand = Date.now() + 4_000;
      }
    }
    const endCount = sweepCount();
    samples.push({ at: Date.now(), count: endCount });
    const elapsedMin = (samples.at(-1)!.at - started) / 60_000;
    const sweepCalls = endCount - startCount;
    const perMinute = Math.round((sweepCalls / elapsedMin) * 10) / 10;
    let maxInMinute = 0;
    for (const from of samples) {
      const to = [...samples].reverse().find((s) => s.at - from.at <= 60_000);
      if (to && to.at - from.at >= 55_000)
        maxInMinute = Math.max(maxInMinute, to.count - from.count);
    }
    const clustersPerHour = (perMinute / CALLS_PER_CLUSTER) * 60;
    return {
      clusters,
      radarCallsPerMinute: callsPerMinute,
      radarPacePerMinute: pace,
      pendingRepaves,
      risksChannels: RISKS_CHANNELS.length,
      reconcileSeconds,
      radarAfterReconcileSeconds,
      radarAfterReconcileStoreSeconds,
      windowSeconds: Math.round(windowMs / 1000),
      sweepCalls,
      sweepCallsPerMinute: perMinute,
      sweepMaxInAnyMinute: maxInMinute,
      clustersReadInWindow: Math.floor(sweepCalls / CALLS_PER_CLUSTER),
      hoursToReadEveryCluster:
        clustersPerHour > 0 ? Math.round((clusters / clustersPerHour) * 10) / 10 : 0,
      pollCallsPerCycle: mean(pollCycles),
      pollCycles,
      clusterCommand: {
        p50Ms: percentile(answers, 50),
        p99Ms: percentile(answers, 99),
        samples: answers.length,
      },
      botSteadyRssMb: percentile(rss, 50),
      botPeakRssMb: peakRssMb(bot.child.pid!),
      palette429s: sim.control.requests().filter((r) => r.status === 429).length,
    };
  } finally {
    await bot.kill();
    await fake.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runRadarBench(
  fleets = [10_000, 50_000],
  windowMs = Number(process.env.RADAR_WINDOW_MS ?? 150_000),
  /** RADAR_RATES: the RADAR_CALLS_PER_MINUTE values each fleet runs with (0: the radar off; `default`: unset) */
  rates: Array<number | "default"> = (process.env.RADAR_RATES ?? "default,0")
    .split(",")
    .map((rate) => (rate === "default" ? "default" : Number(rate))),
) {
  const script = buildBot();
  const runs: RadarRun[] = [];
  for (const clusters of fleets) {
    for (const callsPerMinute of rates) {
      process.stderr.write(`bench radar: ${clusters} clusters, ${callsPerMinute}/min…\n`);
      runs.push(
        await measure(
          clusters,
          callsPerMinute,
          callsPerMinute === "default" || callsPerMinute > 0 ? windowMs : windowMs / 2,
          script,
        ),
      );
    }
  }
  return {
    bench: "radar",
    node: process.version,
    setup:
      "bot as its own process (compiled, image node settings, HTTP mode, SQLite); simulator with rate limits enforced, 1% unhealthy, 3 projects, 1,000 repaves pending; POLL_SCHEDULE */30 s, RECONCILE_SCHEDULE every 2 min; each fleet with RADAR_CALLS_PER_MINUTE unset (the pace follows the fleet) and 0; two risks channels; /palette cluster every ~4 s during the window",
    runs,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const fleets = process.env.RADAR_FLEETS?.split(",").map(Number);
  console.log(JSON.stringify(await runRadarBench(fleets), null, 2));
}
