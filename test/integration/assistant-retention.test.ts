import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startBot as startFullBot } from "../../src/app/bot.ts";
import { ManualClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/log.ts";
import { startScriptedModel } from "../../src/simulator/scripted-model.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import { startFakeSlack } from "../support/fake-slack.ts";
import { until } from "../support/start-process-harness.ts";

describe("ASSISTANT_HISTORY_DAYS (issue 36)", () => {
  it("the lease holder's retention round deletes turns past it, with no one asking", async () => {
    const now = Date.UTC(2026, 10, 25, 12);
    const clock = new ManualClock(now);
    const day = 86_400_000;
    const sim = await startSimulator({ clusters: 2, projects: 1, seed: 7 });
    const fake = await startFakeSlack();
    const model = await startScriptedModel();
    const stateDb = join(mkdtempSync(join(tmpdir(), "assistant-retention-")), "state.sqlite");
    const seed = await openSqlite(stateDb);
    for (const [age, question] of [
      [8, "too old"],
      [6, "kept: 6 days"],
    ] as const) {
      await seed.run(
        `INSERT INTO assistant_turns (conversation, user_id, question, answer, read_text, created_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
        ["C1:1.1", "W1", question, "a", "r", now - age * day],
      );
    }
    await seed.close();
    const config = loadConfig({
      SLACK_BOT_TOKEN: "xoxb-retention-test",
      SLACK_SIGNING_SECRET: "retention-signing-secret",
      SLACK_API_URL: fake.apiUrl,
      PALETTE_API_URL: sim.url,
      PALETTE_API_KEY: sim.credentials.apiKey,
      STATE_DB: stateDb,
      PORT: "0",
      POLL_SCHEDULE: "0 0 1 1 *",
      RECONCILE_SCHEDULE: "0 0 1 1 *",
      ASSISTANT_PROVIDER: "openai-compatible",
      ASSISTANT_BASE_URL: model.baseUrl,
      ASSISTANT_MODEL: "scripted",
      ASSISTANT_HISTORY_DAYS: "7",
    });
    const bot = await startFullBot(config, silentLogger, clock, { auditPruneEveryMs: 50 });
    const reader = await openSqlite(stateDb);
    try {
      const questions = async () =>
        (
          await reader.all<{ question: string }>("SELECT question FROM assistant_turns ORDER BY id")
        ).map((row) => row.question);
      await until("the leader's first round", async () => !(await questions()).includes("too old"));
      expect(await questions()).toEqual(["kept: 6 days"]);
      clock.advance(2 * day);
      await until("the next round", async () => (await questions()).length === 0);
    } finally {
      await reader.close();
      await bot.stop();
      await model.close();
      await fake.close();
      await sim.close();
    }
  });
});
