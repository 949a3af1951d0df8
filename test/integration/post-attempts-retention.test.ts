import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startBot as startFullBot } from "../../src/app/bot.ts";
import { ManualClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { POST_ATTEMPT_KEEP_MS } from "../../src/notify/delivery/post-once.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import { startFakeSlack } from "../support/fake-slack.ts";
import { retentionConfig } from "../support/retention-config.ts";
import { until } from "../support/start-process-harness.ts";

/**
 * Issue 37 item 1: a post's attempt marker is dropped by the write that settles its message, so
 * a crash between the post and that write leaves it behind; nothing pruned those. The lease
 * holder's retention round now deletes markers older than POST_ATTEMPT_KEEP_MS by the database's
 * clock (the one that stamped them), and keeps younger ones, which a retry may still need.
 */
describe("attempt markers a crash left behind", () => {
  it("the lease holder's retention round deletes those past their week, keeps the rest", async () => {
    const sim = await startSimulator({ clusters: 2, projects: 1, seed: 7 });
    const fake = await startFakeSlack();
    const stateDb = join(mkdtempSync(join(tmpdir(), "post-attempts-retention-")), "state.sqlite");
    const seed = await openSqlite(stateDb);
    // stamped by the database's clock (real time on SQLite), as PostAttemptStore.mark does
    const dbNow = Number(
      (await seed.get<{ now: number }>(
        "SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) AS now",
      ))!.now,
    );
    for (const [key, ageMs] of [
      ["outbox:1", POST_ATTEMPT_KEEP_MS + 3_600_000],
      ["outbox:2", POST_ATTEMPT_KEEP_MS - 3_600_000],
    ] as const) {
      await seed.run(
        "INSERT INTO post_attempts (key, channel, thread_ts, token, at_ms) VALUES (?, ?, NULL, ?, ?)",
        [key, "C1", `t-${key}`, dbNow - ageMs],
      );
    }
    await seed.close();
    const config = retentionConfig({
      slackApiUrl: fake.apiUrl,
      paletteUrl: sim.url,
      paletteApiKey: sim.credentials.apiKey,
      stateDb,
    });
    const clock = new ManualClock(Date.UTC(2026, 10, 25, 12));
    const bot = await startFullBot(config, silentLogger, clock, { auditPruneEveryMs: 50 });
    const reader = await openSqlite(stateDb);
    try {
      const keys = async () =>
        (await reader.all<{ key: string }>("SELECT key FROM post_attempts ORDER BY key")).map(
          (row) => row.key,
        );
      await until("the leader's first round", async () => !(await keys()).includes("outbox:1"));
      expect(await keys()).toEqual(["outbox:2"]);
    } finally {
      await reader.close();
      await bot.stop();
      await fake.close();
      await sim.close();
    }
  });
});
