import { fork } from "node:child_process";
import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath, pathToFileURL } from "node:url";
import { App, HTTPReceiver, LogLevel } from "@slack/bolt";
import { silentLogger } from "../src/log.ts";
import { createPaletteClient } from "../src/palette/client.ts";
import { Secret } from "../src/secret.ts";
import { startSimulator } from "../src/simulator/server.ts";
import { boltLogger } from "../src/slack/bolt-logger.ts";
import { type FakeSlack, startFakeSlack } from "../test/support/fake-slack.ts";
import { BOT_TOKEN, SIGNING_SECRET, startBot } from "../test/support/slack-harness.ts";
import { signedRequest, slashCommandBody } from "../test/support/slack-request.ts";

/**
 * Ack latency of `/palette`: signed slash commands, N concurrent, against the real bot (HTTP mode,
 * simulator and fake Slack behind it), side by side with a bare Bolt app that only acks (the
 * floor). Ack = time until the HTTP response to Slack's request; the answer follows later.
 */

export interface AckBenchOptions {
  requests?: number;
  concurrency?: number;
  /** the command text sent to the real bot */
  text?: string;
  /** the bot's maxConcurrentCommands */
  maxConcurrentCommands?: number;
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

/** The floor: Bolt with the same receiver settings, whose listener only acks. */
async function startBareBolt(apiUrl: string): Promise<{ url: string; close(): Promise<void> }> {
  const receiver = new HTTPReceiver({
    signingSecret: SIGNING_SECRET,
    endpoints: "/slack/events",
    logger: boltLogger(silentLogger),
    logLevel: LogLevel.ERROR,
  });
  const app = new App({
    token: BOT_TOKEN,
    receiver,
    logger: boltLogger(silentLogger),
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: apiUrl },
    deferInitialization: true,
  });
  app.command("/palette", async ({ ack }) => {
    await ack();
  });
  await app.init();
  const server = (await app.start(0)) as Server;
  if (!server.listening) await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`,
    close: () => app.stop() as Promise<void>,
  };
}

interface Backends {
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

export async function runAckBench(options: AckBenchOptions = {}) {
  const total = options.requests ?? 200;
  const concurrency = options.concurrency ?? 50;
  const text = options.text ?? "clusters";

  const backends = await startBackends();
  const palette = createPaletteClient({
    baseUrl: backends.simUrl,
    credentials: { kind: "apiKey", apiKey: new Secret(backends.apiKey) },
    logger: silentLogger,
    // the figure is the ack; pacing Palette calls would only stretch the answers' tail
    rateLimit: false,
  });
  // the harness talks to the fake Slack only through its URLs, so a stand-in object will do
  const remoteFake = {
    url: backends.fakeUrl,
    apiUrl: backends.fakeApiUrl,
    close: async () => {},
  } as unknown as FakeSlack;
  const bot = await startBot({
    palette,
    fake: remoteFake,
    maxConcurrentCommands: options.maxConcurrentCommands,
  });
  const floor = await startBareBolt(backends.fakeApiUrl);

  const load = await startLoad();
  try {
    const run = (url: string, tag: string, n: number, c: number) =>
      load.fire({ url, total: n, concurrency: c, text, responseBase: backends.fakeUrl, tag });

    // warm both (JIT, sockets, Bolt's auth), then measure them back to back
    await run(floor.url, "warm-floor", 20, 10);
    await run(bot.url, "warm-bot", 20, 10);
    await backends.waitForAnswers(20, 30_000);
    backends.reset();

    const cpuMs = (since: NodeJS.CpuUsage) => {
      const used = process.cpuUsage(since);
      return (used.user + used.system) / 1000;
    };
    let cpu = process.cpuUsage();
    const floorRun = await run(floor.url, "floor", total, concurrency);
    const floorCpuMs = cpuMs(cpu);
    cpu = process.cpuUsage();
    const started = performance.now();
    const botRun = await run(bot.url, "bot", total, concurrency);
    const answers = await backends.waitForAnswers(total, 60_000);
    const answeredInMs = Math.round(performance.now() - started);
    const botCpuMs = cpuMs(cpu);

    const botStats = stats(botRun.ms, botRun.non200);
    const floorStats = stats(floorRun.ms, floorRun.non200);
    return {
      bench: "ack",
      requests: total,
      concurrency,
      command: `/palette ${text}`,
      bot: botStats,
      floor: floorStats,
      ratioP50: Math.round((botStats.p50Ms / Math.max(0.01, floorStats.p50Ms)) * 100) / 100,
      ratioP99: Math.round((botStats.p99Ms / Math.max(0.01, floorStats.p99Ms)) * 100) / 100,
      /** CPU of the bot's process per command: the bot's includes running it and answering */
      cpuMsPerCommand: {
        bot: Math.round((botCpuMs / total) * 100) / 100,
        floor: Math.round((floorCpuMs / total) * 100) / 100,
      },
      answersDelivered: answers,
      allAnsweredWithinMs: answeredInMs,
      slackAckBudgetMs: 3000,
      setup:
        "three processes: load generator (signs and sends, like Slack) | bot and floor | simulator + fake Slack",
    };
  } finally {
    await load.close();
    await floor.close();
    await bot.close();
    await palette.close();
    await backends.close();
  }
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
