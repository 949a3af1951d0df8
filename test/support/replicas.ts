import type { PaletteClient } from "../../src/palette/client.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { BACKENDS, closeOpened } from "./backends.ts";
import { type FakeSlack, type FakeSlackOptions, startFakeSlack } from "./fake-slack.ts";
import { apiKeyClient } from "./palette-client-helpers.ts";
import { type BotHarness, type HarnessOptions, startBot } from "./slack-harness.ts";

/**
 * Replicas of the bot's Slack edge on one fresh PostgreSQL database, as the chart runs them:
 * the simulator behind them and one fake Slack they all answer.
 */
export interface Replicas {
  sim: RunningSimulator;
  palette: PaletteClient;
  fake: FakeSlack;
  bots: BotHarness[];
  close(): Promise<void>;
}

export async function startReplicasOnPostgres(
  count: number,
  options: {
    seed: number;
    harness?: (sim: RunningSimulator) => HarnessOptions;
    /** the fake Slack's options (a lax Slack, with its reason) */
    fakeSlack?: FakeSlackOptions;
  },
): Promise<Replicas> {
  const sim = await startSimulator({ clusters: 10, seed: options.seed });
  const palette = apiKeyClient(sim, { retries: 1 });
  const fake = await startFakeSlack(options.fakeSlack);
  const db = await BACKENDS.find((backend) => backend.name === "postgres")!.open();
  const bots: BotHarness[] = [];
  for (let i = 0; i < count; i++) {
    bots.push(await startBot({ ...options.harness?.(sim), palette, fake, db }));
  }
  return {
    sim,
    palette,
    fake,
    bots,
    async close() {
      for (const bot of bots) await bot.close();
      await closeOpened();
      await fake.close();
      await palette.close();
      await sim.close();
    },
  };
}
