/**
 * Benchmark of the notification poll: fleets of 1,000 and 10,000 clusters over 3 projects in the
 * in-process simulator (documented rate limits enforced), the real Palette client (paced), the
 * real poller and sender, and the fake Slack. Prints JSON. Run alone with
 * `npx tsx bench/poll.ts`, or call `runPollBench()`.
 */
import { pathToFileURL } from "node:url";
import { systemClock } from "../src/clock.ts";
import { silentLogger } from "../src/log.ts";
import { createSender } from "../src/notify/delivery/outbox-sender.ts";
import { createPoller } from "../src/notify/poll/poll.ts";
import { createPaletteClient } from "../src/palette/client.ts";
import { Secret } from "../src/secret.ts";
import { startSimulator } from "../src/simulator/server.ts";
import { createSlackPoster } from "../src/slack/notify-poster.ts";
import { openSqlite } from "../src/store/sqlite.ts";
import { SubscriptionStore } from "../src/store/subscriptions.ts";
import { startFakeSlack } from "../test/support/fake-slack.ts";

const DASHBOARD_PER_SECOND = 10;
const PAGE = 50;

export interface PollFigures {
  clusters: number;
  projects: number;
  /** Palette requests of one steady-state cycle (no change) */
  callsPerCycle: number;
  /** sum over projects of ceil(n/50) search pages + one alerts call per project */
  minimumCalls: number;
  callsAtMinimum: boolean;
  /** first cycle (baseline) and a steady-state cycle, wall time */
  baselineCycleMs: number;
  steadyCycleMs: number;
  /** pages / 10 per s: the least time the documented /v1/dashboard limit allows */
  rateLimitFloorMs: number;
  /** 429s the simulator answered during the run */
  rateLimited: number;
  /** change in the simulator → its card at the fake Slack, with a cycle started at once */
  changeToSlackMs: number;
  /** the same, for a health loss (alert with reason: one events call more) */
  healthLossToSlackMs: number;
  peakRssMb: number;
  /** Slack messages for the baseline: must be 1 (one summary) */
  baselineMessages: number;
}

export interface PollBenchResult {
  bench: "poll";
  node: string;
  note: string;
  runs: PollFigures[];
}

async function measure(clusters: number, projects: number): Promise<PollFigures> {
  const sim = await startSimulator({ clusters, projects, seed: 21, enforceRateLimits: true });
  const fake = await startFakeSlack();
  const palette = createPaletteClient({
    baseUrl: sim.url,
    credentials: { kind: "apiKey", apiKey: new Secret(sim.credentials.apiKey) },
    logger: silentLogger,
  });
  const db = await openSqlite(":memory:");
  await new SubscriptionStore(db, systemClock).add({ channel: "C1", kind: "all", createdBy: "U1" });
  const sender = createSender({
    db,
    slack: createSlackPoster({ token: new Secret("xoxb-bench"), apiUrl: fake.apiUrl }),
    clock: systemClock,
    logger: silentLogger,
    idlePollMs: 50,
  });
  const poller = createPoller({
    palette,
    db,
    clock: systemClock,
    logger: silentLogger,
    projects: sim.control.projects(),
    onCommitted: () => sender.wake(),
  });
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 25);
  sender.start();
  try {
    const perProject = sim.control.projects().map((p) => sim.control.clusters(p).length);
    const pages = perProject.reduce((sum, n) => sum + Math.max(1, Math.ceil(n / PAGE)), 0);
    const minimumCalls = pages + perProject.length;

    let started = performance.now();
    await poller.runCycle();
    const baselineCycleMs = performance.now() - started;
    await fake.waitFor("chat.postMessage", 1, 10_000);

    sim.control.clearRequests();
    started = performance.now();
    await poller.runCycle();
    const steadyCycleMs = performance.now() - started;
    const callsPerCycle = sim.control.requests().length;
    const baselineMessages = fake.callsTo("chat.postMessage").length;

    const latency = async (change: (uid: string) => void, uid: string) => {
      const before = fake.callsTo("chat.postMessage").length;
      const t0 = performance.now();
      change(uid);
      await poller.runCycle();
      await fake.waitFor("chat.postMessage", before + 1, 30_000);
      return performance.now() - t0;
    };
    const running = sim.control
      .clusters()
      .filter((c) => c.state === "Running" && c.health === "Healthy");
    const changeToSlackMs = await latency(
      (uid) => sim.control.setState(uid, "Upgrading"),
      running[0]!.uid,
    );
    const healthLossToSlackMs = await latency(
      (uid) => sim.control.setHealth(uid, "UnHealthy", "node NotReady"),
      running[1]!.uid,
    );
    const rateLimited = sim.control.requests().filter((r) => r.status === 429).length;
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    return {
      clusters,
      projects,
      callsPerCycle,
      minimumCalls,
      callsAtMinimum: callsPerCycle === minimumCalls,
      baselineCycleMs: Math.round(baselineCycleMs),
      steadyCycleMs: Math.round(steadyCycleMs),
      rateLimitFloorMs: Math.round((pages / DASHBOARD_PER_SECOND) * 1000),
      rateLimited,
      changeToSlackMs: Math.round(changeToSlackMs),
      healthLossToSlackMs: Math.round(healthLossToSlackMs),
      peakRssMb: Math.round((peakRss / 1024 / 1024) * 10) / 10,
      baselineMessages,
    };
  } finally {
    clearInterval(sampler);
    await sender.stop();
    await poller.stop();
    await palette.close();
    await sim.close();
    await fake.close();
    await db.close();
  }
}

export async function runPollBench(sizes: number[] = [1_000, 10_000]): Promise<PollBenchResult> {
  const runs: PollFigures[] = [];
  for (const size of sizes) runs.push(await measure(size, 3));
  return {
    bench: "poll",
    node: process.version,
    note: "RSS includes the in-process simulator and fake Slack; change→Slack excludes the wait for the next POLL_SCHEDULE tick (add up to one interval, 30 s by default)",
    runs,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runPollBench()
    .then((result) => {
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    })
    .catch((error: unknown) => {
      process.stderr.write(`bench/poll failed: ${String(error)}\n`);
      process.exitCode = 1;
    });
}
