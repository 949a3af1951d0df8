import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import {
  type CliProcess,
  freePort,
  leaked,
  logged,
  spawnCli,
  until,
} from "../support/start-process-harness.ts";

/**
 * `palette-chatops start` and its store (issue 32), as an operator runs it: STATE_DB and
 * DATABASE_URL naming different stores stop it at once, naming both (and never the URL); a
 * second process on a SQLite file another live process holds says so and stops; a process
 * after one that was killed starts once the dead one's lease has run out.
 */

const random = (prefix: string) => `${prefix}${randomBytes(12).toString("hex")}`;
const dir = mkdtempSync(join(tmpdir(), "start-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("palette-chatops start: which store", () => {
  let sim: RunningSimulator;
  let fake: FakeSlack;
  const runs: CliProcess[] = [];
  const secrets = {
    SLACK_BOT_TOKEN: random("xoxb-1111-2222-"),
    SLACK_SIGNING_SECRET: random(""),
    PALETTE_API_KEY: random("pk-"),
  };
  const env = (extra: Record<string, string>) => ({
    ...secrets,
    SLACK_API_URL: fake.apiUrl,
    PALETTE_API_URL: sim.url,
    // a short lease, so a dead holder's runs out within the test
    LEADER_LEASE_TTL_MS: "3000",
    LEADER_RENEW_MS: "1000",
    ...extra,
  });

  beforeAll(async () => {
    sim = await startSimulator({
      clusters: 4,
      projects: 1,
      seed: 3,
      credentials: { apiKey: secrets.PALETTE_API_KEY },
    });
    fake = await startFakeSlack();
  });

  afterAll(async () => {
    for (const run of runs) await run.kill();
    await sim?.close();
    await fake?.close();
  });

  it("refuses STATE_DB and DATABASE_URL naming different stores, naming both, without the URL", async () => {
    const url = "postgres://bot:pg-password-value@db.internal:5432/chatops";
    const bot = spawnCli(
      ["start"],
      env({ STATE_DB: join(dir, "x.sqlite"), DATABASE_URL: url, PORT: "0" }),
    );
    runs.push(bot);
    const exit = await bot.exited;
    expect(exit.code).toBe(1);
    expect(bot.stderr()).toContain("STATE_DB");
    expect(bot.stderr()).toContain("DATABASE_URL");
    expect(bot.stderr()).toMatch(/different stores/);
    expect(leaked(bot.output(), { url, password: "pg-password-value" })).toEqual([]);
    // it stopped before talking to anyone
    expect(fake.callsTo("auth.test")).toHaveLength(0);
  });

  it("a second process on a SQLite file another live one holds says so and stops", async () => {
    const file = join(dir, "shared.sqlite");
    const first = spawnCli(["start"], env({ STATE_DB: file, PORT: String(await freePort()) }));
    runs.push(first);
    await until(
      "the first bot to start",
      () => logged(first, "palette-chatops started")[0],
      60_000,
    );
    expect(logged(first, "palette-chatops started")[0]).toMatchObject({
      store: "sqlite",
      leader: true,
    });
    const authBefore = fake.callsTo("auth.test").length;

    const second = spawnCli(["start"], env({ STATE_DB: file, PORT: String(await freePort()) }));
    runs.push(second);
    const exit = await second.exited;
    expect(exit.code, second.output()).toBe(1);
    const said = second.stderr();
    expect(said).toContain(file);
    expect(said).toMatch(/cannot be shared by replicas/);
    expect(said).toContain("DATABASE_URL");
    expect(logged(second, "palette-chatops started")).toEqual([]);
    // the second never reached Slack; the first still runs
    expect(fake.callsTo("auth.test").length).toBe(authBefore);
    expect(first.child.exitCode).toBeNull();

    // killed without a chance to release its lease: the next process waits it out, then starts
    await first.kill();
    const third = spawnCli(["start"], env({ STATE_DB: file, PORT: String(await freePort()) }));
    runs.push(third);
    await until("the next bot to start", () => logged(third, "palette-chatops started")[0], 60_000);
    expect(logged(third, "palette-chatops started")[0]).toMatchObject({ leader: true });
    const stopped = await third.stop("SIGTERM", 15_000);
    expect(stopped.code).toBe(0);
  }, 240_000);
});
