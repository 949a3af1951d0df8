import { fork, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startSimulator } from "../src/simulator/server.ts";
import { type FakeSlack, startFakeSlack } from "../test/support/fake-slack.ts";
import { signedRequest, slashCommandBody } from "../test/support/slack-request.ts";
import { freePort, spawnCli, until } from "../test/support/start-process-harness.ts";
import { buildBot } from "./compiled-bot.ts";
import { imageNodeFlags, imageNodeOptions } from "./image-node-options.ts";

export const SIGNING_SECRET = "ack-bench-signing-secret";
const BOT_TOKEN = "xoxb-ack-bench";

/**
 * Ack latency of `/palette`: signed slash commands, N concurrent, against the real bot (HTTP mode,
 * simulator and fake Slack behind it), side by side with a bare Bolt app that only acks (the
 * floor). Ack = time until the HTTP response to Slack's request; the answer follows later.
 *
 * Both run as the image runs the bot: each its own process, compiled JavaScript, NODE_ENV
 * production, the Dockerfile's node flags and NODE_OPTIONS, so the ratio measures the bot's own
 * code and not a heap setting. One run is ROUNDS paired rounds (the floor and the bot back to back,
 * which goes first alternating) on fresh processes; the figure is the median over RUNS runs of the
 * p99 ratio, per burst width, because one run's p99 swings on a shared machine.
 */

export interface AckBenchOptions {
  /** burst widths: commands in flight at once */
  widths?: number[];
  runs?: number;
  rounds?: number;
  /** acks per side in one round */
  perRound?: number;
  /** the command text sent to the real bot */
  text?: string;
}

interface Stats {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
  non200: number;
}

function stats(samples: number[], non200: number): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? 0;
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return {
    p50Ms: round(at(0.5)),
    p99Ms: round(at(0.99)),
    maxMs: round(sorted.at(-1) ?? 0),
    meanMs: round(sorted.reduce((sum, ms) => sum + ms, 0) / Math.max(1, sorted.length)),
    non200,
  };
}

/** Sends `total` signed commands, `concurrency` at a time; returns each ack's latency. */
async function fire(
  url: string,
  total: number,
  concurrency: number,
  body: (i: number) => string,
): Promise<{ ms: number[]; non200: number }> {
  const ms: number[] = [];
  let non200 = 0;
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const raw = body(i);
      const request = signedRequest(SIGNING_SECRET, raw);
      const started = performance.now();
      const response = await fetch(url, { method: "POST", headers: request.headers, body: raw });
      await response.arrayBuffer();
      ms.push(performance.now() - started);
      if (response.status !== 200) non200++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { ms, non200 };
}

interface FireRequest {
  type: "fire";
  id: number;
  url: string;
  total: number;
  concurrency: number;
  text: string;
  /** response_url base of the fake Slack, and a tag that keeps the runs' URLs apart */
  responseBase: string;
  tag: string;
}
type FromLoad = { type: "ready" } | { type: "fired"; id: number; ms: number[]; non200: number };

/** Child-process side: the load generator, so its own work is not counted against the bot. */
function serveLoad(): void {
  process.on("message", async (message: FireRequest | { type: "close" }) => {
    if (message.type === "close") {
      process.disconnect?.();
      return;
    }
    const body = (i: number) =>
      slashCommandBody({
        text: message.text,
        responseUrl: `${message.responseBase}/response/${message.tag}-${i}`,
        triggerId: `${message.tag}.${i}.bench`,
      });
    const run = await fire(message.url, message.total, message.concurrency, body);
    process.send?.({ type: "fired", id: message.id, ...run } satisfies FromLoad);
  });
  process.send?.({ type: "ready" } satisfies FromLoad);
}

async function startLoad() {
  const child = fork(fileURLToPath(import.meta.url), ["--load"], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  await once(child, "message");
  let sequence = 0;
  return {
    async fire(request: Omit<FireRequest, "type" | "id">) {
      const id = ++sequence;
      child.send({ type: "fire", id, ...request } satisfies FireRequest);
      for (;;) {
        const [message] = (await once(child, "message")) as [FromLoad];
        if (message.type === "fired" && message.id === id) return message;
      }
    },
    async close() {
      child.send({ type: "close" });
      await once(child, "exit");
    },
  };
}

interface RunningSide {
  url: string;
  pid: number;
  close(): Promise<void>;
}

/** The compiled bot, started as the image starts it (its node flags, NODE_OPTIONS, production). */
export async function startBotProcess(
  script: string,
  backends: Backends,
  dir: string,
  /** more of the bot's environment (the day-2 bench grants ALLOW_SCALE) */
  extraEnv: Record<string, string> = {},
): Promise<RunningSide> {
  const port = await freePort();
  const bot = spawnCli(
    ["start"],
    {
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: backends.fakeApiUrl,
      PALETTE_API_URL: backends.simUrl,
      PALETTE_API_KEY: backends.apiKey,
      PORT: String(port),
      STATE_DB: join(dir, "ack.sqlite"),
      NODE_ENV: "production",
      NODE_OPTIONS: imageNodeOptions(),
      ...extraEnv,
    },
    { script, nodeArgs: imageNodeFlags() },
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await until("the bot's /readyz", async () => (await fetch(`${url}/readyz`)).ok, 60_000);
  } catch (error) {
    await bot.kill();
    throw new Error(
      `ack bench: the bot did not get ready: ${String(error)}\n${bot.output().slice(-2000)}`,
    );
  }
  return { url: `${url}/slack/events`, pid: bot.child.pid ?? 0, close: () => bot.kill() };
}

/** The floor (bench/ack/bare-bolt.js), run exactly like the bot: same node flags and options. */
async function startFloorProcess(backends: Backends): Promise<RunningSide> {
  const port = await freePort();
  const floor = spawn(
    process.execPath,
    [...imageNodeFlags(), join(import.meta.dirname, "ack", "bare-bolt.js")],
    {
      env: {
        PATH: process.env.PATH ?? "",
        NODE_ENV: "production",
        NODE_OPTIONS: imageNodeOptions(),
        ACK_FLOOR_PORT: String(port),
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_BOT_TOKEN: BOT_TOKEN,
        SLACK_API_URL: backends.fakeApiUrl,
      },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const [chunk] = (await once(floor.stdout!, "data")) as [Buffer];
  if (!chunk.toString().includes("listening"))
    throw new Error("ack bench: the floor did not start");
  return {
    url: `http://127.0.0.1:${port}/slack/events`,
    pid: floor.pid ?? 0,
    async close() {
      floor.kill("SIGKILL");
      if (floor.exitCode === null && floor.signalCode === null) await once(floor, "exit");
    },
  };
}

export interface Backends {
  simUrl: string;
  apiKey: string;
  fakeUrl: string;
  fakeApiUrl: string;
}

type ToBackends = { type: "count"; id: number } | { type: "reset" } | { type: "close" };
type FromBackends =
  | ({ type: "ready" } & Backends)
  | { type: "count"; id: number; count: number }
  | { type: "closed" };

/**
 * Child-process side: the simulator and the fake Slack, which in production are other machines.
 * Running them in their own process keeps their work off the event loop being measured.
 */
async function serveBackends(): Promise<void> {
  const sim = await startSimulator({ clusters: 40, seed: 1 });
  const fake: FakeSlack = await startFakeSlack();
  const send = (message: FromBackends) => process.send?.(message);
  process.on("message", async (message: ToBackends) => {
    if (message.type === "count") {
      send({ type: "count", id: message.id, count: fake.callsTo("response").length });
    } else if (message.type === "reset") {
      fake.reset();
    } else {
      await fake.close();
      await sim.close();
      send({ type: "closed" });
      process.disconnect?.();
    }
  });
  send({
    type: "ready",
    simUrl: sim.url,
    apiKey: sim.credentials.apiKey,
    fakeUrl: fake.url,
    fakeApiUrl: fake.apiUrl,
  });
}

async function startBackends() {
  const child = fork(fileURLToPath(import.meta.url), ["--backends"], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const [ready] = (await once(child, "message")) as [FromBackends];
  if (ready.type !== "ready") throw new Error("ack bench: backends did not start");
  let sequence = 0;
  const count = async (): Promise<number> => {
    const id = ++sequence;
    child.send({ type: "count", id } satisfies ToBackends);
    for (;;) {
      const [message] = (await once(child, "message")) as [FromBackends];
      if (message.type === "count" && message.id === id) return message.count;
    }
  };
  return {
    ...ready,
    count,
    async waitForAnswers(n: number, timeoutMs: number): Promise<number> {
      const deadline = Date.now() + timeoutMs;
      let seen = await count();
      while (seen < n && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        seen = await count();
      }
      return seen;
    },
    reset: () => child.send({ type: "reset" } satisfies ToBackends),
    async close() {
      child.send({ type: "close" } satisfies ToBackends);
      await once(child, "exit");
    },
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? sorted[middle]!
    : Math.round(((sorted[middle - 1]! + sorted[middle]!) / 2) * 100) / 100;
};
const ratio = (bot: number, floor: number) => Math.round((bot / Math.max(0.01, floor)) * 100) / 100;

/** One run: fresh bot, floor and backends; ROUNDS paired rounds of `perRound` acks each side. */
async function measureRun(
  script: string,
  width: number,
  rounds: number,
  perRound: number,
  text: string,
  runTag: string,
) {
  const backends = await startBackends();
  const dir = mkdtempSync(join(tmpdir(), "ack-bench-"));
  const sides: RunningSide[] = [];
  const load = await startLoad();
  try {
    const bot = await startBotProcess(script, backends, dir);
    sides.push(bot);
    const floor = await startFloorProcess(backends);
    sides.push(floor);
    const fire = (url: string, tag: string, n: number, c: number) =>
      load.fire({ url, total: n, concurrency: c, text, responseBase: backends.fakeUrl, tag });

    // warm both (JIT, sockets, Bolt's auth), then let the bot's answers drain
    await fire(floor.url, `${runTag}-warm-floor`, 40, width);
    await fire(bot.url, `${runTag}-warm-bot`, 40, width);
    await backends.waitForAnswers(40, 60_000);
    backends.reset();

    let answered = 0;
    const botMs: number[] = [];
    const floorMs: number[] = [];
    let botNon200 = 0;
    let floorNon200 = 0;
    for (let round = 0; round < rounds; round++) {
      const botRound = async () => {
        const run = await fire(bot.url, `${runTag}-bot-${round}`, perRound, width);
        botMs.push(...run.ms);
        botNon200 += run.non200;
        // the bot's answers drain before the next burst, so neither side's round meets the
        // bot's leftover answer work (a paired round compares like with like)
        answered = await backends.waitForAnswers(answered + perRound, 60_000);
      };
      const floorRound = async () => {
        const run = await fire(floor.url, `${runTag}-floor-${round}`, perRound, width);
        floorMs.push(...run.ms);
        floorNon200 += run.non200;
      };
      // which side goes first alternates, so neither always meets the other's leftovers
      if (round % 2 === 0) {
        await floorRound();
        await botRound();
      } else {
        await botRound();
        await floorRound();
      }
    }
    const bot_ = stats(botMs, botNon200);
    const floor_ = stats(floorMs, floorNon200);
    return {
      bot: bot_,
      floor: floor_,
      ratioP50: ratio(bot_.p50Ms, floor_.p50Ms),
      ratioP99: ratio(bot_.p99Ms, floor_.p99Ms),
      answersDelivered: answered,
    };
  } finally {
    await load.close();
    for (const side of sides) await side.close();
    await backends.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runAckBench(options: AckBenchOptions = {}) {
  const widths = options.widths ?? [10, 50];
  const runs = options.runs ?? 5;
  const rounds = options.rounds ?? 10;
  const perRound = options.perRound ?? 200;
  // help: its answer is real work (dispatch, Block Kit, the response_url POST) that does not wait
  // on Palette's rate limits. A burst of `clusters` is answered at /v1/dashboard's 10 req/s, so a
  // run's 2,000 would leave ~1,900 commands queued in the bot, a state no team's typing reaches,
  // and rounds could not drain between bursts.
  const text = options.text ?? "help";
  const script = buildBot();

  const byWidth: Record<string, unknown> = {};
  for (const width of widths) {
    const results = [];
    for (let run = 0; run < runs; run++) {
      results.push(await measureRun(script, width, rounds, perRound, text, `w${width}-r${run}`));
    }
    byWidth[String(width)] = {
      concurrency: width,
      ratioP99Median: median(results.map((result) => result.ratioP99)),
      ratioP99Runs: results.map((result) => result.ratioP99),
      ratioP50Median: median(results.map((result) => result.ratioP50)),
      runs: results,
    };
  }
  return {
    bench: "ack",
    command: `/palette ${text}`,
    runsPerWidth: runs,
    roundsPerRun: rounds,
    acksPerRoundPerSide: perRound,
    widths: byWidth,
    nodeFlags: imageNodeFlags(),
    nodeOptions: imageNodeOptions(),
    slackAckBudgetMs: 3000,
    setup:
      "four processes per run: load generator (signs and sends, like Slack) | the compiled bot (node dist/main.js start, as the image runs it) | bare Bolt (same node flags, NODE_OPTIONS, NODE_ENV) | simulator + fake Slack",
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv.includes("--backends")) {
    await serveBackends();
  } else if (process.argv.includes("--load")) {
    serveLoad();
  } else {
    const result = await runAckBench();
    console.log(JSON.stringify(result, null, 2));
  }
}
