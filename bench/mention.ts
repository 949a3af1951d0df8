import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSimulator } from "../src/simulator/server.ts";
import { startFakeSlack } from "../test/support/fake-slack.ts";
import { readFixtureJson } from "../test/support/fixtures.ts";
import { signedRequest } from "../test/support/slack-request.ts";
import { SIGNING_SECRET, startBotProcess } from "./ack.ts";
import { buildBot } from "./compiled-bot.ts";
import { percentiles } from "./percentiles.ts";

/**
 * `@Palette cluster <name>`, AT_ONCE mentions at a time, against the bot as the image runs it (its
 * own process: compiled, NODE_ENV production, the Dockerfile's node flags and NODE_OPTIONS), the
 * simulator and a fake Slack in this process. Per mention: the ack (HTTP response to Slack's
 * delivery), the first reaction (:eyes: reaching Slack) and the answer (the thread's message
 * reaching Slack), each from the moment the delivery was sent. ROUNDS rounds, answers drained
 * between them; percentiles over all mentions of the run.
 */

export interface MentionBenchOptions {
  atOnce?: number;
  rounds?: number;
  clusters?: number;
}

export async function runMentionBench(options: MentionBenchOptions = {}) {
  const atOnce = options.atOnce ?? 20;
  const rounds = options.rounds ?? 10;
  const script = buildBot();
  const sim = await startSimulator({ clusters: options.clusters ?? 200, seed: 19 });
  const fake = await startFakeSlack();
  const dir = mkdtempSync(join(tmpdir(), "mention-bench-"));
  const bot = await startBotProcess(
    script,
    { simUrl: sim.url, apiKey: sim.credentials.apiKey, fakeUrl: fake.url, fakeApiUrl: fake.apiUrl },
    dir,
  );
  try {
    const names = sim.control.clusters().map((cluster) => cluster.name);
    const { payload } = readFixtureJson<{ payload: Record<string, unknown> }>(
      "slack",
      "events",
      "app_mention.json",
    );
    const acks: number[] = [];
    const reactions: number[] = [];
    const answers: number[] = [];
    let non200 = 0;
    let sequence = 0;
    for (let round = 0; round < rounds; round++) {
      fake.reset();
      const sentAt = new Map<string, number>();
      await Promise.all(
        Array.from({ length: atOnce }, async (_, i) => {
          const n = ++sequence;
          const ts = `${1_800_000_000 + n}.000100`;
          const body = JSON.stringify({
            ...payload,
            event_id: `EvBENCH${n}`,
            event: {
              ...(payload.event as object),
              text: `<@UBOT> cluster ${names[(round * atOnce + i) % names.length]}`,
              ts,
              channel: `CBENCH${i}`,
            },
          });
          const request = signedRequest(SIGNING_SECRET, body, { contentType: "application/json" });
          const started = Date.now();
          sentAt.set(ts, started);
          const response = await fetch(bot.url, { method: "POST", headers: request.headers, body });
          await response.arrayBuffer();
          acks.push(Date.now() - started);
          if (response.status !== 200) non200++;
        }),
      );
      // every mention of the round answered before the next round starts
      await fake.waitFor("chat.postMessage", atOnce, 60_000);
      for (const call of fake.callsTo("reactions.add")) {
        const sent = sentAt.get(String(call.body.timestamp));
        if (sent !== undefined) reactions.push(call.at - sent);
      }
      for (const call of fake.callsTo("chat.postMessage")) {
        const sent = sentAt.get(String(call.body.thread_ts));
        if (sent !== undefined) answers.push(call.at - sent);
      }
    }
    return {
      mentions: rounds * atOnce,
      atOnce,
      non200,
      ack: percentiles(acks),
      firstReaction: { ...percentiles(reactions), count: reactions.length },
      answer: { ...percentiles(answers), count: answers.length },
      note: "ms from sending the signed app_mention delivery; bot compiled, NODE_ENV=production, the image's node flags and NODE_OPTIONS, its own process",
    };
  } finally {
    await bot.close();
    await fake.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
