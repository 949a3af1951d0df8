import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { AnswerGrounding, KnownNames } from "../src/assistant/ground.ts";
import { startScriptedModel } from "../src/simulator/scripted-model.ts";
import { startSimulator } from "../src/simulator/server.ts";
import { startFakeSlack } from "../test/support/fake-slack.ts";
import { readFixtureJson } from "../test/support/fixtures.ts";
import { signedRequest } from "../test/support/slack-request.ts";
import { SIGNING_SECRET, startBotProcess } from "./ack.ts";
import { buildBot } from "./compiled-bot.ts";
import { imageNodeOptions } from "./image-node-options.ts";
import { mean, percentiles } from "./percentiles.ts";
import { peakRssMb, rssMb } from "./process-memory.ts";

/**
 * `npm run bench -- ask` (issue 33): QUESTIONS questions to the assistant at once, as
 * `@Palette <question>` deliveries from different people in different channels, against the bot
 * as the image runs it (its own process, compiled), the Palette simulator, a fake Slack and the
 * scripted model answering every request in a fixed MODEL_DELAY_MS. Per question: the first status
 * (assistant.threads.setStatus reaching Slack) and the answer (chat.stopStream, or the final
 * message), from the moment the delivery was sent; Palette calls and tokens per question from
 * the bot's own /metrics; the bot's RSS after the run and its peak.
 */

const QUESTIONS = 20;
const MODEL_DELAY_MS = 500;
/** the clusters the bot knows by name (issue 36: the grounding check at fleet scale) */
const KNOWN_NAMES = 50_000;

const WORDS = [
  "web",
  "api",
  "checkout",
  "billing",
  "search",
  "edge",
  "data",
  "ml",
  "auth",
  "cache",
];
const ENVS = ["prod", "stage", "dev", "qa"];
/** a fleet's worth of plausible cluster names, all different */
export function fleetNames(count: number): string[] {
  return Array.from(
    { length: count },
    (_, i) => `${WORDS[i % WORDS.length]}-${ENVS[(i >> 3) % ENVS.length]}-${i}`,
  );
}

/**
 * The grounding check alone, as the bot runs it on each streamed line: the poll's names built
 * into a Set once, then 12-line answers over a read of 50 clusters, every line checked; half the
 * answers name a cluster the poll knows but no read returned (the check must catch those too).
 */
export function measureGrounding(knownCount = KNOWN_NAMES, answers = 500) {
  const names = fleetNames(knownCount);
  const builtAt = performance.now();
  const known = new KnownNames(names);
  const buildMs = performance.now() - builtAt;
  const perLine: number[] = [];
  let caught = 0;
  for (let a = 0; a < answers; a++) {
    const grounding = new AnswerGrounding(known, "https://console.spectrocloud.com");
    const read = Array.from({ length: 50 }, (_, i) => names[(a * 50 + i) % names.length]!);
    grounding.add(read.flatMap((name) => [name, "Running", "Healthy", "aws", "10.0.3.7"]));
    for (let line = 0; line < 12; line++) {
      const named =
        line === 11 && a % 2 === 1 ? names[(a * 50 + 7_000) % names.length]! : read[line]!;
      const text = `• \`${named}\` · Running · Healthy · 3 of 3 nodes Ready, v1.29.3, updated 2026-11-28 (see https://console.spectrocloud.com/clusters)`;
      const started = performance.now();
      const shown = grounding.line(text);
      perLine.push(performance.now() - started);
      if (shown === undefined) caught += 1;
    }
  }
  return {
    knownNames: knownCount,
    setBuildOncePerPollMs: Math.round(buildMs * 10) / 10,
    // to the microsecond: the check's budget is 5 ms a line
    perLine: percentiles(perLine, 3),
    inventedCaught: `${caught} of ${Math.floor(answers / 2)}`,
  };
}

/** The bot's longest event-loop block in [from, to] from the probe's 100 ms windows. */
function longestBlockMs(file: string, from: number, to: number): number {
  if (!existsSync(file)) return Number.NaN;
  let longest = 0;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const [at, max] = line.split(" ").map(Number);
    if (at === undefined || max === undefined || Number.isNaN(at)) continue;
    // a window's line is written when the loop is free again: a block that began before the
    // round (the bench seeding the store holds the bot's SQLite writes) is not the round's
    if (at - max >= from && at <= to + 100) longest = Math.max(longest, max);
  }
  return Math.round(longest * 10) / 10;
}

/** Palette requests (pages counted) of each invented-name question, from the bot's own audit. */
function readInventedCalls(dbPath: string): number[] {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db
      .prepare("SELECT detail FROM audit WHERE action = 'assistant' AND user_id LIKE 'UINV%'")
      .all()
      .map((row) => Number(JSON.parse((row as { detail: string }).detail).paletteCalls));
  } finally {
    db.close();
  }
}

/** Adds `count` clusters to the bot's last-poll snapshot, as a fleet of that size would. */
function seedKnownNames(dbPath: string, count: number): void {
  const db = new Database(dbPath);
  try {
    db.pragma("busy_timeout = 10000");
    const insert = db.prepare(
      "INSERT OR IGNORE INTO notify_snapshots (project, cluster_uid, name, state, health, tags, updated_at, project_uid) VALUES (?, ?, ?, 'Running', 'Healthy', '[]', ?, '')",
    );
    const at = new Date().toISOString();
    db.transaction(() => {
      fleetNames(count).forEach((name, i) => {
        insert.run("bench-fleet", i.toString(16).padStart(24, "0"), name, at);
      });
    })();
  } finally {
    db.close();
  }
}

/** a counter's value in a Prometheus text exposition (summed over its labels) */
function metric(text: string, name: string, labels = ""): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith(`${name}${labels ? `{${labels}` : ""}`) && !line.startsWith("#")) {
      sum += Number(line.split(" ").at(-1));
    }
  }
  return sum;
}

export async function runAskBench(
  options: { questions?: number; rounds?: number; knownNames?: number } = {},
) {
  const questions = options.questions ?? QUESTIONS;
  const rounds = options.rounds ?? 3;
  // ASK_KNOWN_NAMES=0: the same run with no fleet behind it, to compare
  const knownCount = options.knownNames ?? Number(process.env.ASK_KNOWN_NAMES ?? KNOWN_NAMES);
  const grounding = measureGrounding(Math.max(knownCount, 1_000));
  const script = buildBot();
  const sim = await startSimulator({ clusters: 200, seed: 33 });
  const model = await startScriptedModel({ delayMs: MODEL_DELAY_MS });
  const fake = await startFakeSlack();
  const dir = mkdtempSync(join(tmpdir(), "ask-bench-"));
  const probeFile = join(dir, "loop-probe.txt");
  const bot = await startBotProcess(
    script,
    { simUrl: sim.url, apiKey: sim.credentials.apiKey, fakeUrl: fake.url, fakeApiUrl: fake.apiUrl },
    dir,
    {
      ASSISTANT_PROVIDER: "openai-compatible",
      ASSISTANT_BASE_URL: model.baseUrl,
      ASSISTANT_MODEL: "scripted",
      ASSISTANT_PER_USER_PER_HOUR: "1000",
      // the event-loop probe (bench/loop-probe.mjs) in the bot's process, for this bench only
      NODE_OPTIONS: `${imageNodeOptions()} --import ${join(import.meta.dirname, "loop-probe.mjs")}`,
      LOOP_PROBE_FILE: probeFile,
    },
  );
  if (knownCount > 0) {
    seedKnownNames(join(dir, "ack.sqlite"), knownCount);
    // the seed's transaction held the bot's own writes: let it catch up before the first round
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  const metricsUrl = bot.url.replace("/slack/events", "/metrics");
  try {
    const names = sim.control.clusters().map((cluster) => cluster.name);
    const { payload } = readFixtureJson<{ payload: Record<string, unknown> }>(
      "slack",
      "events",
      "app_mention.json",
    );
    const asks = [
      (name: string) => `what are the nodes of ${name}?`,
      (name: string) => `tell me about cluster ${name}`,
      () => "which clusters are unhealthy right now?",
      (name: string) => `what happened to ${name} lately?`,
    ];
    const firstStatus: number[] = [];
    const answers: number[] = [];
    const blocks: number[] = [];
    let sequence = 0;
    // the rounds, then one more in which every question names a cluster that does not exist (a
    // model inventing names): its Palette requests per question, against the cap
    let text = "";
    let modelRequests = 0;
    for (let round = 0; round <= rounds; round++) {
      const invented = round === rounds;
      if (invented) {
        text = await (await fetch(metricsUrl)).text();
        modelRequests = model.requests.length;
      }
      fake.reset();
      const roundStarted = Date.now();
      const sentAt = new Map<string, number>();
      await Promise.all(
        Array.from({ length: questions }, async (_, i) => {
          const n = ++sequence;
          // a DM's thread: in a channel the answer is ephemeral and not streamed (issue 36
          // item 2), and this times the status line and the streamed answer
          const channel = `DASKB${n}`;
          const body = JSON.stringify({
            ...payload,
            event_id: `EvASKB${n}`,
            event: {
              ...(payload.event as object),
              text: invented
                ? `<@UBOT> what about ghost-prod-${n}?`
                : `<@UBOT> ${asks[i % asks.length]!(names[n % names.length]!)}`,
              ts: `${1_800_000_000 + n}.000100`,
              channel,
              user: invented ? `UINV${i}` : `UASK${i}`,
            },
          });
          const request = signedRequest(SIGNING_SECRET, body, { contentType: "application/json" });
          sentAt.set(channel, Date.now());
          const response = await fetch(bot.url, { method: "POST", headers: request.headers, body });
          await response.arrayBuffer();
        }),
      );
      // every question of the round answered (stream stopped, or the final edit) before the next
      const done = () =>
        new Set(
          fake.calls
            .filter((call) => call.method === "chat.stopStream" || call.method === "chat.update")
            .map((call) => String(call.body.channel)),
        );
      const deadline = Date.now() + 120_000;
      while (done().size < questions && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      if (invented) break;
      blocks.push(longestBlockMs(probeFile, roundStarted, Date.now()));
      for (const [channel, sent] of sentAt) {
        const status = fake.calls.find(
          (call) =>
            call.method === "assistant.threads.setStatus" && call.body.channel_id === channel,
        );
        if (status) firstStatus.push(status.at - sent);
        const end = fake.calls.find(
          (call) =>
            (call.method === "chat.stopStream" || call.method === "chat.update") &&
            call.body.channel === channel,
        );
        if (end) answers.push(end.at - sent);
      }
    }
    const inventedCalls = readInventedCalls(join(dir, "ack.sqlite"));
    const asked = metric(text, "palette_chatops_assistant_questions_total");
    const answered = metric(
      text,
      "palette_chatops_assistant_questions_total",
      'surface="mention",outcome="answered"',
    );
    return {
      questions: rounds * questions,
      atOnce: questions,
      modelDelayMs: MODEL_DELAY_MS,
      answered,
      knownNames: knownCount,
      grounding,
      longestEventLoopBlockMs: Math.max(...blocks),
      longestEventLoopBlockPerRoundMs: blocks,
      firstStatus: percentiles(firstStatus),
      answer: percentiles(answers),
      inventedNames: {
        questions: inventedCalls.length,
        paletteRequests: percentiles(inventedCalls),
        cap: 40,
      },
      modelRequestsPerQuestion: mean([modelRequests / Math.max(1, asked)]),
      paletteCallsPerQuestion: mean([
        metric(text, "palette_chatops_assistant_palette_calls_total") / Math.max(1, asked),
      ]),
      tokensInPerQuestion: Math.round(
        metric(text, "palette_chatops_assistant_tokens_total", 'direction="in"') /
          Math.max(1, asked),
      ),
      tokensOutPerQuestion: Math.round(
        metric(text, "palette_chatops_assistant_tokens_total", 'direction="out"') /
          Math.max(1, asked),
      ),
      botRssMb: rssMb(bot.pid),
      botPeakRssMb: peakRssMb(bot.pid),
      note: "ms from sending the signed app_mention delivery; the scripted model answers each request after a fixed 500 ms (a question is 2 requests); bot compiled, its own process",
    };
  } finally {
    await bot.close();
    await fake.close();
    await model.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
