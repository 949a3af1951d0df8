/**
 * Fleet scale (`npm run bench -- scale`): the bot as its own process (`bin/palette-chatops.js
 * start`, HTTP mode) against the simulator with 10,000 and 50,000 clusters in 3 projects, 1% not
 * Running and Healthy, 20 changes a minute of churn, Palette's documented rate limits enforced,
 * POLL_SCHEDULE every 30 s and RECONCILE_SCHEDULE every 3 minutes, the radar on at its default
 * RADAR_CALLS_PER_MINUTE as in production. The simulator, the fake Slack and the load live in this
 * process; the bot's memory and latency are its own. Prints JSON.
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
const PAGE = 50;
const DASHBOARD_PER_SECOND = 10;
const SIGNING_SECRET = "scale-bench-signing-secret";
const STEADY_CYCLES = 6;
const MEASURED_RECONCILIATIONS = 2;
/** RADAR_CALLS_PER_MINUTE's default (src/config.ts): the bench leaves it unset, as production does */
const RADAR_DEFAULT_CALLS_PER_MINUTE = 30;
// (issue 31: the default now follows the fleet, 131 requests a minute at 50,000, capped at 600;
// the figures in bench/results.json under `scale` were measured before, at 30)

/**
 * The radar's paths (src/radar/, src/palette/client-radar.ts): its sweep's three reads per cluster
 * and the fleet's pending-repave list. It runs in the background at its own pace and shares the
 * simulator's request log, so these are taken out of every window that counts someone else's calls.
 */
const RADAR_SWEEP_PATH =
  /^\/v1\/spectroclusters\/[^/]+\/(k8certificates|profileUpdates|features\/backup)$/;
const RADAR_REPAVE_PATH = "/v1/dashboard/spectroclusters/repaveStatus";
const isRadar = (request: { method: string; path: string }) =>
  request.method === "GET" &&
  (RADAR_SWEEP_PATH.test(request.path) || request.path === RADAR_REPAVE_PATH);

export interface ScaleFigures {
  clusters: number;
  projects: number;
  /** first poll after start: the full listing (a reconciliation) */
  reconcileMs: number;
  /** search pages over the documented /v1/dashboard limit: the least time a full listing takes */
  rateLimitFloorMs: number;
  reconcileToFloor: number;
  /**
   * Palette calls per steady (incremental) poll cycle, mean of STEADY_CYCLES: the bot's own count
   * (`poll_palette_calls{kind="incremental"}`, the cycle's own counted client, so neither the
   * radar nor a command can enter it, whatever its paths or timing)
   */
  callsPerSteadyCycle: number;
  /**
   * the bar for those cycles, mean: per project 3, plus ceil(its clusters not Running and
   * Healthy / 50), plus 1 per 50 of its clusters that left that set since the cycle before (read
   * off the simulator)
   */
  steadyCycleBar: number;
  /**
   * each steady cycle's calls against its own bar: `calls` the bot's own count; `simulatorCalls`
   * the requests the simulator served in the cycle's window minus the radar's paths (a retried
   * request counts there, not in the bot's count); `byEndpoint` what those were; `radarCalls` the
   * radar's requests in the same window (not the poll's)
   */
  steadyCycles: Array<{
    calls: number;
    simulatorCalls: number;
    bar: number;
    byEndpoint: Record<string, number>;
    radarCalls: number;
  }>;
  /** both counts of every steady cycle at or under its bar */
  everySteadyCycleWithinBar: boolean;
  /** the bot's count and the simulator's (minus the radar) equal in every steady cycle */
  countsAgree: boolean;
  /**
   * of those calls, the likely-cause reads of health-loss notifications (issue 27): per announced
   * cluster one GET /v1/audits and one page of its events, mean per steady cycle
   */
  likelyCauseCallsPerSteadyCycle: number;
  /**
   * the radar, on at its default RADAR_CALLS_PER_MINUTE, over the measured window: its sweep's
   * reads a minute (not the poll's), and the pages of the pending-repave list (after reconciliations)
   */
  radar: {
    callsPerMinuteSetting: number;
    sweepCallsPerMinute: number;
    repaveListCalls: number;
    windowMinutes: number;
  };
  /** clusters not Running and Healthy per project, mean over the steady cycles */
  unsteadyPerProject: number;
  /** Palette calls of the bot's last reconciliation (its own count, `poll_palette_calls`) */
  callsPerReconcile: number;
  /** a change in Palette → its message at the fake Slack */
  changeToSlackMs: {
    p50: number;
    p99: number;
    max: number;
    changes: number;
    seen: number;
    /** every change's delay, in the order made (what p50/p99 are of) */
    delays: number[];
    /** the delays of those whose wait overlapped a reconciliation (incremental cycles go on) */
    duringReconcile: number[];
  };
  /** `/palette cluster <name>`: Palette requests it made (no poll running), answer time during polls */
  command: { paletteCalls: number; answerP50Ms: number; answerP99Ms: number; samples: number };
  /** `/palette cluster <name>` sent while a reconciliation was reading */
  commandDuringReconcile: { answerP50Ms: number; answerP99Ms: number; samples: number };
  /** `/palette digest now` (the channel digest composed from the fleet), sent during a reconciliation */
  digestNowAnswerMs: number;
  reconciliationsMeasured: number;
  /** median resident memory, sampled every second outside reconciliations */
  botSteadyRssMb: number;
  botRssDuringReconcileMaxMb: number;
  botPeakRssMb: number;
  palette429s: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0);
};

async function measure(clusters: number, script: string): Promise<ScaleFigures> {
  const dir = mkdtempSync(join(tmpdir(), "scale-"));
  const sim = await startSimulator({
    clusters,
    projects: PROJECTS,
    seed: 42,
    enforceRateLimits: true,
    unhealthy: 0.01,
    churnPerMinute: 20,
  });
  const fake = await startFakeSlack();
  const port = await freePort();
  const projects = sim.control.projects();
  const bot = spawnCli(
    ["start"],
    {
      SLACK_BOT_TOKEN: "xoxb-scale-bench",
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: fake.apiUrl,
      PALETTE_API_URL: sim.url,
      PALETTE_API_KEY: sim.credentials.apiKey,
      PALETTE_PROJECTS: projects.join(","),
      PORT: String(port),
      STATE_DB: join(dir, "scale.sqlite"),
      POLL_SCHEDULE: "*/30 * * * * *",
      // every 3 minutes rather than the default 10, so the measured minutes hold one: changes
      // made while it reads are measured with the rest
      RECONCILE_SCHEDULE: "0 */3 * * * *",
      // info: each committed cycle's log line says what it read when (reconciliations' windows)
      LOG_LEVEL: "info",
      // as the image runs it: production mode, its V8 memory settings and flags
      NODE_ENV: "production",
      NODE_OPTIONS: imageNodeOptions(),
    },
    { script, nodeArgs: imageNodeFlags() },
  );
  const botUrl = `http://127.0.0.1:${port}`;
  const metric = async (name: string) =>
    sampleValue(await (await fetch(`${botUrl}/metrics`)).text(), name) ?? 0;
  const pollsDone = () => metric('palette_chatops_poll_duration_seconds_count{outcome="ok"}');
  // a RECONCILE_SCHEDULE tick can land between two measured polls: that cycle is no steady one
  const reconciles = () =>
    metric('palette_chatops_poll_cycles_total{kind="reconcile",outcome="ok"}');
  const reconcilingNow = () => metric("palette_chatops_poll_reconciling");
  let sequence = 0;
  const command = async (text: string) => {
    const id = `scale-${++sequence}`;
    const sent = performance.now();
    await postSigned(
      `${botUrl}/slack/events`,
      SIGNING_SECRET,
      slashCommandBody({ text, channelId: "C0SCALE", responseUrl: `${fake.url}/response/${id}` }),
    );
    await until(
      "the answer",
      () => fake.callsTo("response").find((call) => call.body._responseId === id),
      30_000,
    );
    return performance.now() - sent;
  };

  try {
    const started = performance.now();
    await until("the first poll", async () => (await pollsDone()) >= 1, 600_000);
    const reconcileMs = Math.round(performance.now() - started);
    const pages = projects.reduce(
      (sum, project) => sum + Math.max(1, Math.ceil(sim.control.clusters(project).length / PAGE)),
      0,
    );
    const rateLimitFloorMs = Math.round((pages / DASHBOARD_PER_SECOND) * 1000);
    await command(`subscribe clusters`);

    // steady cycles: Palette requests between consecutive poll completions
    /** the bot's own count of each steady cycle's Palette calls */
    const perCycle: number[] = [];
    /** the simulator's count of the same window, the radar's requests left out */
    const perCycleSimulator: number[] = [];
    const perCycleRadar: number[] = [];
    /** each steady cycle's requests by method and path shape, to see what a cycle spent */
    const perCycleEndpoints: Array<Record<string, number>> = [];
    const bars: number[] = [];
    const unsteadyCounts: number[] = [];
    /** uid → project of every cluster not Running and Healthy, as the simulator has it now */
    const unsteadyNow = () =>
      new Map(
        sim.control
          .clusters()
          .filter((c) => c.state !== "Running" || c.health !== "Healthy")
          .map((c) => [c.uid, c.projectUid ?? ""] as const),
      );
    let unsteadyBefore = unsteadyNow();
    let polls = await pollsDone();
    let reconciled = await reconciles();
    let requestsAt = sim.control.requests().length;
    const windowStartedAt = performance.now();
    const windowRequestsAt = requestsAt;
    // names used once in the fleet: the card path (search + overview), not "pick one of 3"
    const uses = new Map<string, number>();
    for (const cluster of sim.control.clusters()) {
      uses.set(cluster.name, (uses.get(cluster.name) ?? 0) + 1);
    }
    const names = [...uses].filter(([, count]) => count === 1).map(([name]) => name);
    if (names.length < 10) throw new Error("the simulated fleet has too few unique cluster names");
    const commandCalls: number[] = [];
    const answerTimes: number[] = [];
    const changes: Array<{ uid: string; name: string; at: number }> = [];
    // the measured window holds at least two reconciliations, so changes made while one reads
    // and commands answered meanwhile are measured, not hoped for
    const reconciledAtStart = reconciled;
    const rss: Array<{ at: number; mb: number; reconciling: boolean }> = [];
    const sampler = setInterval(() => {
      reconcilingNow()
        .then((n) => rss.push({ at: Date.now(), mb: rssMb(bot.child.pid!), reconciling: n > 0 }))
        .catch(() => {});
    }, 1_000);
    const duringReconcileAnswers: number[] = [];
    let digestAnswerMs: number | undefined;
    while (
      perCycle.length < STEADY_CYCLES ||
      (await reconciles()) - reconciledAtStart < MEASURED_RECONCILIATIONS ||
      duringReconcileAnswers.length < 5 ||
      digestAnswerMs === undefined
    ) {
      if ((await reconcilingNow()) > 0) {
        // a reconciliation is reading: a person's command must not wait for it
        if (duringReconcileAnswers.length < 5) {
          const name = names[(duringReconcileAnswers.length * 53 + 7) % names.length];
          duringReconcileAnswers.push(await command(`cluster ${name}`));
        } else if (digestAnswerMs === undefined) {
          // the channel digest composed from the whole fleet, while a reconciliation reads too
          digestAnswerMs = await command("digest now");
        }
      }
      await sleep(500);
      const now = await pollsDone();
      if (now === polls) continue;
      const reconciledNow = await reconciles();
      polls = now;
      const unsteady = unsteadyNow();
      // a reconciliation reading meanwhile shares the request log: that cycle is no steady one
      const steady = reconciledNow === reconciled && (await reconcilingNow()) === 0;
      reconciled = reconciledNow;
      if (steady) {
        // set in the same tick as the completion counter: this is the cycle just seen complete
        perCycle.push(await metric('palette_chatops_poll_palette_calls{kind="incremental"}'));
        const window = sim.control.requests().slice(requestsAt);
        const requests = window.filter((r) => !isRadar(r));
        perCycleSimulator.push(requests.length);
        perCycleRadar.push(window.length - requests.length);
        const byEndpoint: Record<string, number> = {};
        for (const r of requests) {
          const shape = `${r.method} ${r.path.replace(/\/[0-9a-f]{24}(?=\/|$)/g, "/{uid}")}`;
          byEndpoint[shape] = (byEndpoint[shape] ?? 0) + 1;
        }
        perCycleEndpoints.push(byEndpoint);
      }
      const leftPerProject = new Map<string, number>();
      for (const [uid, project] of unsteadyBefore) {
        if (!unsteady.has(uid)) leftPerProject.set(project, (leftPerProject.get(project) ?? 0) + 1);
      }
      if (steady) {
        // per project: 3, plus the pages its not-steady set fills (50 a page, Palette's most),
        // plus one name search per 50 clusters that left that set
        const unsteadyPerProject = new Map<string, number>();
        for (const project of unsteady.values()) {
          unsteadyPerProject.set(project, (unsteadyPerProject.get(project) ?? 0) + 1);
        }
        bars.push(
          projects.reduce(
            (sum, project) =>
              sum +
              3 +
              Math.ceil((unsteadyPerProject.get(project) ?? 0) / PAGE) +
              Math.ceil((leftPerProject.get(project) ?? 0) / PAGE),
            0,
          ),
        );
        unsteadyCounts.push(unsteady.size / PROJECTS);
      }
      // between polls: one command's own Palette calls, and a change the next poll must carry
      const before = sim.control.requests().length;
      await command(`cluster ${names[(perCycle.length * 97) % names.length]}`);
      // a reconciliation's reads would count as the command's; the radar's are left out
      if (steady) {
        commandCalls.push(
          sim.control
            .requests()
            .slice(before)
            .filter((r) => !isRadar(r)).length,
        );
      }
      const target = sim.control.clusters().find((c) => c.state === "Running")!;
      sim.control.setState(target.uid, "Upgrading");
      changes.push({ uid: target.uid, name: target.name, at: Date.now() });
      requestsAt = sim.control.requests().length;
      unsteadyBefore = unsteadyNow();
    }
    clearInterval(sampler);
    const windowMinutes = (performance.now() - windowStartedAt) / 60_000;
    const windowRadar = sim.control.requests().slice(windowRequestsAt).filter(isRadar);
    // commands while a poll runs: fire as the next cycle starts
    const pollAt = Date.now() + ((30_000 - (Date.now() % 30_000)) % 30_000);
    await sleep(pollAt - Date.now() + 200);
    for (let i = 0; i < 5; i++) {
      answerTimes.push(await command(`cluster ${names[((i + 1) * 131) % names.length]}`));
    }
    // a card, a thread line, or a one-poll digest (more than 10 changes), which names its
    // clusters in its blocks only
    const postOf = (change: (typeof changes)[number]) =>
      fake
        .callsTo("chat.postMessage")
        .find(
          (call) =>
            call.at >= change.at &&
            `${String(call.body.text)} ${JSON.stringify(call.body.blocks ?? [])}`.includes(
              change.name,
            ),
        );
    // a change the poll left for a reconciliation that started first comes after it: wait for it
    await sleep(31_000);
    await until("every change in Slack", () => changes.every(postOf), 180_000).catch(() => {});
    /** the reconciliations the bot committed: from the start of their read to their commit */
    const reconcileWindows = bot
      .logs()
      .filter((line) => line.msg === "poll cycle committed" && line.kind === "reconcile")
      .map((line) => [Date.parse(String(line.readFrom)), Date.parse(String(line.time))] as const);
    const timed = changes.flatMap((change) => {
      const post = postOf(change);
      if (!post) return [];
      const overlaps = reconcileWindows.some(([from, to]) => from < post.at && to > change.at);
      return [{ delay: post.at - change.at, overlaps }];
    });
    const delays = timed.map((t) => t.delay);
    const duringReconcile = timed.filter((t) => t.overlaps).map((t) => Math.round(t.delay));
    const requests = sim.control.requests();
    return {
      clusters,
      projects: PROJECTS,
      reconcileMs,
      rateLimitFloorMs,
      reconcileToFloor: Math.round((reconcileMs / rateLimitFloorMs) * 100) / 100,
      callsPerSteadyCycle: mean(perCycle),
      steadyCycleBar: mean(bars),
      steadyCycles: perCycle.map((calls, i) => ({
        calls,
        simulatorCalls: perCycleSimulator[i] ?? 0,
        bar: bars[i] ?? 0,
        byEndpoint: perCycleEndpoints[i] ?? {},
        radarCalls: perCycleRadar[i] ?? 0,
      })),
      everySteadyCycleWithinBar: perCycle.every(
        (calls, i) => Math.max(calls, perCycleSimulator[i] ?? 0) <= (bars[i] ?? 0),
      ),
      countsAgree: perCycle.every((calls, i) => calls === perCycleSimulator[i]),
      // GET /v1/audits is read by the likely-cause line only (the radar never reads it)
      likelyCauseCallsPerSteadyCycle: mean(
        perCycleEndpoints.map((byEndpoint) => 2 * (byEndpoint["GET /v1/audits"] ?? 0)),
      ),
      radar: {
        callsPerMinuteSetting: RADAR_DEFAULT_CALLS_PER_MINUTE,
        sweepCallsPerMinute:
          Math.round(
            (windowRadar.filter((r) => r.path !== RADAR_REPAVE_PATH).length / windowMinutes) * 10,
          ) / 10,
        repaveListCalls: windowRadar.filter((r) => r.path === RADAR_REPAVE_PATH).length,
        windowMinutes: Math.round(windowMinutes * 10) / 10,
      },
      unsteadyPerProject: mean(unsteadyCounts),
      callsPerReconcile: await metric('palette_chatops_poll_palette_calls{kind="reconcile"}'),
      changeToSlackMs: {
        p50: percentile(delays, 50),
        p99: percentile(delays, 99),
        max: percentile(delays, 100),
        changes: changes.length,
        seen: timed.length,
        delays: delays.map(Math.round),
        duringReconcile,
      },
      command: {
        paletteCalls: Math.max(...commandCalls),
        answerP50Ms: percentile(answerTimes, 50),
        answerP99Ms: percentile(answerTimes, 99),
        samples: answerTimes.length,
      },
      commandDuringReconcile: {
        answerP50Ms: percentile(duringReconcileAnswers, 50),
        answerP99Ms: percentile(duringReconcileAnswers, 99),
        samples: duringReconcileAnswers.length,
      },
      digestNowAnswerMs: digestAnswerMs ?? 0,
      reconciliationsMeasured: (await reconciles()) - reconciledAtStart,
      botSteadyRssMb: percentile(
        rss.filter((sample) => !sample.reconciling).map((sample) => sample.mb),
        50,
      ),
      botRssDuringReconcileMaxMb: percentile(
        rss.filter((sample) => sample.reconciling).map((sample) => sample.mb),
        100,
      ),
      botPeakRssMb: peakRssMb(bot.child.pid!),
      palette429s: requests.filter((request) => request.status === 429).length,
    };
  } finally {
    await bot.kill();
    await fake.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runScaleBench(fleets = [10_000, 50_000]) {
  const runs: ScaleFigures[] = [];
  const script = buildBot();
  for (const clusters of fleets) {
    process.stderr.write(`bench scale: ${clusters} clusters…\n`);
    const run = await measure(clusters, script);
    // each size's figures as soon as they are in: a long run cut short keeps what it measured
    process.stderr.write(`bench scale: ${clusters} clusters: ${JSON.stringify(run)}\n`);
    runs.push(run);
  }
  return {
    bench: "scale",
    node: process.version,
    setup:
      "bot as its own process (compiled, node dist/main.js start, HTTP mode); simulator (rate limits enforced, 1% unhealthy, churn 20/min), fake Slack and load in the bench process; POLL_SCHEDULE */30 s, RECONCILE_SCHEDULE every 3 min; the radar on at its default RADAR_CALLS_PER_MINUTE (30); a steady cycle's calls are the bot's own poll_palette_calls, checked against the simulator's log minus the radar's paths",
    runs,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const fleets = process.argv.slice(2).map(Number).filter(Number.isFinite);
  console.log(JSON.stringify(await runScaleBench(fleets.length ? fleets : undefined), null, 2));
}
