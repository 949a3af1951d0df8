import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSimulator } from "../src/simulator/server.ts";
import { startFakeSlack } from "../test/support/fake-slack.ts";
import {
  interactiveBody,
  loadPayload,
  signedRequest,
  slashCommandBody,
} from "../test/support/slack-request.ts";
import { SIGNING_SECRET, startBotProcess } from "./ack.ts";
import { buildBot } from "./compiled-bot.ts";
import { percentiles } from "./percentiles.ts";

/**
 * Day-2 changes against the bot as the image runs it (its own process: compiled, NODE_ENV
 * production, the Dockerfile's node flags and NODE_OPTIONS), the simulator and a fake Slack in
 * this process. AT_ONCE people at a time type `/palette scale <cluster> worker-pool <n>`; per
 * change: the slash command's ack, the confirmation reaching views.open (Slack's trigger_id
 * lasts 3 s), then the submit's ack and the change's card reaching Slack after Palette accepted.
 */

export interface ChangeBenchOptions {
  atOnce?: number;
  rounds?: number;
}

async function post(url: string, body: string, contentType?: string) {
  const request = signedRequest(SIGNING_SECRET, body, contentType ? { contentType } : {});
  const started = Date.now();
  const response = await fetch(url, { method: "POST", headers: request.headers, body });
  await response.arrayBuffer();
  return { status: response.status, ms: Date.now() - started, started };
}

export async function runChangeBench(options: ChangeBenchOptions = {}) {
  const atOnce = options.atOnce ?? 5;
  const rounds = options.rounds ?? 10;
  const script = buildBot();
  // Palette's documented rate limits enforced: the bot paces its reads as it must in production
  const sim = await startSimulator({ clusters: 100, seed: 23, enforceRateLimits: true });
  const project = sim.control.projects()[0]!;
  const names = Array.from({ length: atOnce * rounds }, (_, i) => {
    const name = `bench-scale-${i}`;
    sim.control.addCluster({
      name,
      projectUid: project,
      provider: "aws",
      pools: [
        { name: "cp-pool", size: 1, isControlPlane: true, instanceType: "m5.large" },
        { name: "worker-pool", size: 3, isControlPlane: false, instanceType: "m5.xlarge" },
      ],
    });
    return name;
  });
  const fake = await startFakeSlack();
  const dir = mkdtempSync(join(tmpdir(), "change-bench-"));
  const bot = await startBotProcess(
    script,
    { simUrl: sim.url, apiKey: sim.credentials.apiKey, fakeUrl: fake.url, fakeApiUrl: fake.apiUrl },
    dir,
    { ALLOW_SCALE: "*", PALETTE_PROJECTS: project },
  );
  const { payload } = loadPayload<{ payload: Record<string, unknown> }>("view_submission.json");
  const commandAcks: number[] = [];
  const toModal: number[] = [];
  const submitAcks: number[] = [];
  const toCard: number[] = [];
  let non200 = 0;
  let puts = 0;
  try {
    for (let round = 0; round < rounds; round++) {
      fake.reset();
      sim.control.clearRequests();
      const batch = names.slice(round * atOnce, (round + 1) * atOnce);
      // each person types a command; the confirmation must open within Slack's 3 s
      const asked = await Promise.all(
        batch.map(async (name, i) => {
          const userId = `UBENCH${i}`;
          const body = slashCommandBody({
            text: `scale ${name} worker-pool 4`,
            userId,
            channelId: `CBENCH${i}`,
            responseUrl: `${fake.url}/response/bench-${round}-${i}`,
            triggerId: `${round}${i}.bench.trigger`,
          });
          const answer = await post(bot.url, body);
          if (answer.status !== 200) non200++;
          commandAcks.push(answer.ms);
          return { name, userId, started: answer.started };
        }),
      );
      const opened = await fake.waitFor("views.open", atOnce, 30_000);
      for (const call of opened) {
        const trigger = String(call.body.trigger_id);
        const who = asked.find((_, i) => trigger === `${round}${i}.bench.trigger`);
        if (who) toModal.push(call.at - who.started);
      }
      // each confirms; the card reaches the channel once Palette accepted the resize
      const submittedAt = new Map<string, number>();
      await Promise.all(
        opened.map(async (call, i) => {
          const view = call.body.view as Record<string, unknown>;
          const submission = {
            ...payload,
            user: { ...(payload.user as object), id: `UBENCH${i}` },
            view: {
              ...(payload.view as object),
              id: `VBENCH${round}-${i}`,
              callback_id: view.callback_id,
              private_metadata: view.private_metadata,
              blocks: view.blocks,
              state: { values: {} },
            },
            response_urls: [],
          };
          const metadata = JSON.parse(String(view.private_metadata)) as { channel: string };
          const answer = await post(bot.url, interactiveBody(submission));
          if (answer.status !== 200) non200++;
          submitAcks.push(answer.ms);
          submittedAt.set(metadata.channel, answer.started);
        }),
      );
      await fake.waitFor("chat.postMessage", atOnce, 30_000);
      for (const call of fake.callsTo("chat.postMessage")) {
        const started = submittedAt.get(String(call.body.channel));
        if (started !== undefined) toCard.push(call.at - started);
      }
      puts += sim.control.requests().filter((r) => r.method === "PUT").length;
    }
    return {
      changes: rounds * atOnce,
      atOnce,
      non200,
      palettePuts: puts,
      commandAck: percentiles(commandAcks),
      commandToConfirmation: percentiles(toModal),
      submitAck: percentiles(submitAcks),
      submitToCard: percentiles(toCard),
      note: "ms from sending the signed request; the confirmation must open within Slack's 3 s trigger_id; bot compiled, NODE_ENV=production, the image's node flags and NODE_OPTIONS, its own process; the simulator enforces Palette's rate limits",
      measuredAt: new Date().toISOString(),
    };
  } finally {
    await bot.close();
    await fake.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
