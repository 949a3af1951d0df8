import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startScriptedModel } from "../src/simulator/scripted-model.ts";
import { startSimulator } from "../src/simulator/server.ts";
import { startFakeSlack } from "../test/support/fake-slack.ts";
import { readFixtureJson } from "../test/support/fixtures.ts";
import { signedRequest } from "../test/support/slack-request.ts";
import { SIGNING_SECRET, startBotProcess } from "./ack.ts";
import { buildBot } from "./compiled-bot.ts";
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

export async function runAskBench(options: { questions?: number; rounds?: number } = {}) {
  const questions = options.questions ?? QUESTIONS;
  const rounds = options.rounds ?? 3;
  const script = buildBot();
  const sim = await startSimulator({ clusters: 200, seed: 33 });
  const model = await startScriptedModel({ delayMs: MODEL_DELAY_MS });
  const fake = await startFakeSlack();
  const dir = mkdtempSync(join(tmpdir(), "ask-bench-"));
  const bot = await startBotProcess(
    script,
    { simUrl: sim.url, apiKey: sim.credentials.apiKey, fakeUrl: fake.url, fakeApiUrl: fake.apiUrl },
    dir,
    {
      ASSISTANT_PROVIDER: "openai-compatible",
      ASSISTANT_BASE_URL: model.baseUrl,
      ASSISTANT_MODEL: "scripted",
      ASSISTANT_PER_USER_PER_HOUR: "1000",
    },
  );
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
    let sequence = 0;
    for (let round = 0; round < rounds; round++) {
      fake.reset();
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
              text: `<@UBOT> ${asks[i % asks.length]!(names[n % names.length]!)}`,
              ts: `${1_800_000_000 + n}.000100`,
              channel,
              user: `UASK${i}`,
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
    const text = await (await fetch(metricsUrl)).text();
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
      firstStatus: percentiles(firstStatus),
      answer: percentiles(answers),
      modelRequestsPerQuestion: mean([model.requests.length / Math.max(1, asked)]),
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
