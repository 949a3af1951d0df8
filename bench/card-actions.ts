import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { CARD_ACTIONS } from "../src/model/notification.ts";
import { startSimulator } from "../src/simulator/server.ts";
import { type RecordedCall, startFakeSlack } from "../test/support/fake-slack.ts";
import {
  interactiveBody,
  loadPayload,
  postSigned,
  slashCommandBody,
} from "../test/support/slack-request.ts";
import { freePort, spawnCli, until } from "../test/support/start-process-harness.ts";

/**
 * On-call actions on notification cards, against the bot as its own process (HTTP mode, the
 * simulator and a fake Slack Web API beside it): a burst of signed Acknowledge clicks, then of
 * Snooze 1 h picks, one per card. For each click: the HTTP ack Slack waits for (3 s limit), and
 * the time until the card's `chat.update` saying so reaches Slack.
 */

export interface CardActionFigures {
  cards: number;
  concurrency: number;
  acknowledge: ClickStats;
  snooze: ClickStats;
}

interface ClickStats {
  ackP50Ms: number;
  ackP99Ms: number;
  editP50Ms: number;
  editP99Ms: number;
  editMaxMs: number;
  /** clicks whose card was not edited within 10 s */
  missing: number;
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? 0);
};

interface Card {
  channel: string;
  uid: string;
  project: string;
}

export async function runCardActionBench(
  options: { perChannel?: number; channels?: number; concurrency?: number } = {},
): Promise<CardActionFigures> {
  const perChannel = options.perChannel ?? 8;
  const channelCount = options.channels ?? 3;
  const concurrency = options.concurrency ?? 8;
  const dir = mkdtempSync(join(tmpdir(), "card-actions-"));
  const secret = randomBytes(16).toString("hex");
  const sim = await startSimulator({ clusters: 90, projects: channelCount, seed: 13 });
  const fake = await startFakeSlack();
  const port = await freePort();
  const projects = sim.control.projects();
  const clusters = sim.control.clusters();
  for (const cluster of clusters) {
    sim.control.setState(cluster.uid, "Running");
    sim.control.setHealth(cluster.uid, "Healthy");
  }
  const bot = spawnCli(["start"], {
    SLACK_BOT_TOKEN: `xoxb-bench-${randomBytes(6).toString("hex")}`,
    SLACK_SIGNING_SECRET: secret,
    SLACK_API_URL: fake.apiUrl,
    PALETTE_API_URL: sim.url,
    PALETTE_API_KEY: sim.credentials.apiKey,
    PALETTE_PROJECTS: projects.join(","),
    PORT: String(port),
    STATE_DB: join(dir, "state.sqlite"),
    POLL_SCHEDULE: "*/2 * * * * *",
    LOG_LEVEL: "warn",
  });
  const url = `http://127.0.0.1:${port}/slack/events`;
  try {
    await until("the bot ready", async () => {
      const answer = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      return answer?.ok === true;
    });
    const channels = projects.map((_, i) => `C0CARDS${i}`);
    for (const [i, channel] of channels.entries()) {
      await postSigned(
        url,
        secret,
        slashCommandBody({
          text: `subscribe clusters project:${projects[i]}`,
          channelId: channel,
          responseUrl: `${fake.url}/response/sub-${i}`,
        }),
      );
    }
    await until("the subscriptions", () => fake.callsTo("response").length >= channels.length);
    const cards: Card[] = [];
    for (const [i, project] of projects.entries()) {
      for (const cluster of clusters.filter((c) => c.projectUid === project).slice(0, perChannel)) {
        sim.control.setHealth(cluster.uid, "UnHealthy", "bench");
        cards.push({ channel: channels[i]!, uid: cluster.uid, project });
      }
    }
    const isCard = (call: RecordedCall, card: Card) =>
      call.body.channel === card.channel &&
      !call.body.thread_ts &&
      JSON.stringify(call.body.blocks ?? "").includes(card.uid);
    await until(
      "every card posted",
      () => cards.every((card) => fake.callsTo("chat.postMessage").some((c) => isCard(c, card))),
      30_000,
    );

    const { payload } = loadPayload<{ payload: Record<string, unknown> }>(
      "block_actions.button_in_message.json",
    );
    const template = (payload.actions as Array<Record<string, unknown>>)[0]!;
    const click = (card: Card, action: Record<string, unknown>, n: number) =>
      interactiveBody({
        ...payload,
        channel: { id: card.channel, name: "bench" },
        container: { type: "message", channel_id: card.channel },
        message: undefined,
        trigger_id: `${n}.1.bench`,
        response_url: `${fake.url}/response/click-${n}`,
        actions: [{ block_id: template.block_id, action_ts: template.action_ts, ...action }],
      });
    const value = (card: Card, extra: Record<string, string> = {}) =>
      JSON.stringify({ c: card.uid, p: card.project, ...extra });

    let sequence = 0;
    const burst = async (
      action: (card: Card) => Record<string, unknown>,
      edited: (call: RecordedCall) => boolean,
    ): Promise<ClickStats> => {
      const acks: number[] = [];
      const edits: number[] = [];
      let missing = 0;
      const queue = [...cards];
      const worker = async () => {
        for (let card = queue.shift(); card; card = queue.shift()) {
          const target = card;
          const sent = performance.now();
          const sentAt = Date.now();
          const answer = await postSigned(url, secret, click(target, action(target), ++sequence));
          acks.push(performance.now() - sent);
          if (answer.status !== 200) throw new Error(`click answered ${answer.status}`);
          const update = await until(
            "the card's edit",
            () =>
              fake
                .callsTo("chat.update")
                .find(
                  (call) =>
                    call.at >= sentAt &&
                    call.body.channel === target.channel &&
                    JSON.stringify(call.body.blocks ?? "").includes(target.uid) &&
                    edited(call),
                ),
            10_000,
          ).catch(() => undefined);
          if (update) edits.push(update.at - sentAt);
          else missing += 1;
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      return {
        ackP50Ms: percentile(acks, 0.5),
        ackP99Ms: percentile(acks, 0.99),
        editP50Ms: percentile(edits, 0.5),
        editP99Ms: percentile(edits, 0.99),
        editMaxMs: percentile(edits, 1),
        missing,
      };
    };

    const acknowledge = await burst(
      (card) => ({ type: "button", action_id: CARD_ACTIONS.ack, value: value(card) }),
      (call) => JSON.stringify(call.body.blocks).includes("Acknowledged by"),
    );
    const snooze = await burst(
      (card) => ({
        type: "static_select",
        action_id: CARD_ACTIONS.snooze,
        selected_option: {
          text: { type: "plain_text", text: "1 hour" },
          value: value(card, { s: "1h" }),
        },
      }),
      (call) => JSON.stringify(call.body.blocks).includes("Snoozed by"),
    );
    return { cards: cards.length, concurrency, acknowledge, snooze };
  } finally {
    await bot.stop("SIGTERM").catch(() => bot.kill());
    await fake.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const figures = await runCardActionBench();
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
  process.exit(0);
}
