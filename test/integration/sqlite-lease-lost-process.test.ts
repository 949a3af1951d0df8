import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import {
  type CliProcess,
  freePort,
  logged,
  spawnCli,
  until,
} from "../support/start-process-harness.ts";

/**
 * A bot on SQLite whose lease on the file moves to another process while it runs (what a process
 * paused past its lease wakes to: another one was started on the file meanwhile) must not run on
 * beside it as a follower, as a PostgreSQL replica would: there is no second replica on SQLite,
 * only two processes on one file. It says so and exits non-zero, so the orchestrator starts it
 * again and its start-up claim decides (review of issue 37, finding 6).
 */

describe("a SQLite bot whose file lease was taken over", () => {
  let sim: RunningSimulator;
  let fake: FakeSlack;
  const dir = mkdtempSync(join(tmpdir(), "sqlite-lease-lost-"));
  const stateDb = join(dir, "state.sqlite");
  let bot: CliProcess | undefined;

  beforeAll(async () => {
    sim = await startSimulator({ clusters: 4, projects: 1, seed: 3 });
    fake = await startFakeSlack();
  });
  afterAll(async () => {
    await bot?.kill();
    await fake?.close();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("logs why and exits 1 at its next renewal", async () => {
    bot = spawnCli(["start"], {
      SLACK_BOT_TOKEN: "xoxb-lease-lost",
      SLACK_SIGNING_SECRET: "lease-lost-secret",
      SLACK_API_URL: fake.apiUrl,
      PALETTE_API_URL: sim.url,
      PALETTE_API_KEY: sim.credentials.apiKey,
      PORT: String(await freePort()),
      STATE_DB: stateDb,
      LEADER_LEASE_TTL_MS: "60000",
      LEADER_RENEW_MS: "500",
    });
    await until(
      "the bot to take the file's lease",
      () => logged(bot!, "leader lease taken: this replica runs the poll and sender")[0],
      20_000,
    );
    // another process on the file, as one started while this one was paused would be
    const file = new Database(stateDb);
    file.pragma("busy_timeout = 5000");
    file
      .prepare(
        "UPDATE replica_lease SET holder = 'another-host/7/abcd', token = token + 1, expires_at = ?",
      )
      .run(Date.now() + 10 * 60_000);
    file.close();

    const exit = await bot.exited;
    expect(exit.code).toBe(1);
    const said = logged(bot, "exiting: this process must not run on")[0];
    expect(String(said?.err)).toContain(stateDb);
    expect(String(said?.err)).toContain("taken by another process");
  }, 60_000);
});
