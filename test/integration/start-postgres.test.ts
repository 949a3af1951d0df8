import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { POSTGRES_MIGRATIONS } from "../../src/store/migrations/postgres.ts";
import { openPostgres } from "../../src/store/postgres.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import { freshDatabase, POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";
import { postSigned, slashCommandBody } from "../support/slack-request.ts";
import {
  type CliProcess,
  freePort,
  leaked,
  logged,
  spawnCli,
  until,
} from "../support/start-process-harness.ts";

/**
 * `palette-chatops start` with DATABASE_URL (and no STATE_DB): the whole pipeline on
 * PostgreSQL. The bot migrates a fresh database, takes a subscription, polls the simulator,
 * and a cluster's change reaches the fake Slack through the outbox; the rows are then read
 * back from PostgreSQL itself, and the URL's password is nowhere in the output.
 */

const CHANNEL = "C0PGSTART";
const random = (prefix: string) => `${prefix}${randomBytes(12).toString("hex")}`;

describe("palette-chatops start on PostgreSQL (DATABASE_URL)", () => {
  let sim: RunningSimulator;
  let fake: FakeSlack;
  let port: number;
  let databaseUrl: string;
  let db: SqlDb | undefined;
  let bot: CliProcess | undefined;
  const secrets = {
    SLACK_BOT_TOKEN: random("xoxb-1111-2222-"),
    SLACK_SIGNING_SECRET: random(""),
    PALETTE_API_KEY: random("pk-"),
  };

  beforeAll(async () => {
    databaseUrl = (await freshDatabase()).url;
    sim = await startSimulator({
      clusters: 6,
      projects: 1,
      seed: 11,
      credentials: { apiKey: secrets.PALETTE_API_KEY },
    });
    fake = await startFakeSlack();
    port = await freePort();
  }, POSTGRES_SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await bot?.kill();
    await db?.close();
    await sim?.close();
    await fake?.close();
  });

  it(
    "migrates, polls and posts a notification, keeping its state in PostgreSQL",
    async () => {
      bot = spawnCli(["start"], {
        SLACK_BOT_TOKEN: secrets.SLACK_BOT_TOKEN,
        SLACK_SIGNING_SECRET: secrets.SLACK_SIGNING_SECRET,
        SLACK_API_URL: fake.apiUrl,
        PALETTE_API_URL: sim.url,
        PALETTE_API_KEY: secrets.PALETTE_API_KEY,
        PORT: String(port),
        DATABASE_URL: databaseUrl,
        POLL_SCHEDULE: "* * * * * *",
        LOG_LEVEL: "debug",
      });
      await until("the started log line", () => logged(bot!, "palette-chatops started")[0], 30_000);

      const subscribed = await postSigned(
        `http://127.0.0.1:${port}/slack/events`,
        secrets.SLACK_SIGNING_SECRET,
        slashCommandBody({
          text: "subscribe clusters",
          channelId: CHANNEL,
          responseUrl: `${fake.url}/response/sub`,
        }),
      );
      expect(subscribed.status).toBe(200);
      const answer = await until("the subscribe answer", () =>
        fake.callsTo("response").find((call) => call.body._responseId === "sub"),
      );
      expect(JSON.stringify(answer.body)).toContain("Subscribed");

      await until(
        "/readyz 200",
        async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200,
        20_000,
      );

      const target = sim.control
        .clusters()
        .find((cluster) => cluster.state === "Running" && cluster.health === "Healthy")!;
      sim.control.setState(target.uid, "Upgrading");
      const card = await until(
        "a notification of the upgrade in the channel",
        () =>
          fake
            .callsTo("chat.postMessage")
            .find(
              (call) =>
                call.body.channel === CHANNEL &&
                JSON.stringify(call.body).includes(target.name) &&
                JSON.stringify(call.body).includes("Upgrading"),
            ),
        20_000,
      );
      expect(card.body.channel).toBe(CHANNEL);

      // what the bot wrote is in PostgreSQL, not in some SQLite file
      db = await openPostgres(databaseUrl, { max: 1 });
      const latest = Math.max(...POSTGRES_MIGRATIONS.map((m) => m.id));
      expect(await db.get("SELECT MAX(id) AS id FROM schema_migrations")).toEqual({ id: latest });
      expect(
        await db.all("SELECT channel, kind FROM notify_subscriptions WHERE channel = ?", [CHANNEL]),
      ).toEqual([{ channel: CHANNEL, kind: "clusters" }]);
      expect(
        await db.get("SELECT state FROM notify_snapshots WHERE cluster_uid = ?", [target.uid]),
      ).toEqual({ state: "Upgrading" });
      await until("the card's row marked sent", async () => {
        const row = await db!.get<{ n: number }>(
          "SELECT COUNT(*) AS n FROM notify_outbox WHERE channel = ? AND cluster_uid = ? AND sent_at IS NOT NULL",
          [CHANNEL, target.uid],
        );
        return row!.n >= 1;
      });
      expect(
        await db.get(
          "SELECT COUNT(*) AS n FROM notify_cards WHERE channel = ? AND cluster_uid = ?",
          [CHANNEL, target.uid],
        ),
      ).toEqual({ n: 1 });

      const stopped = await bot.stop("SIGTERM", 15_000);
      expect(stopped.code).toBe(0);
      const password = new URL(databaseUrl).password;
      expect(password.length).toBeGreaterThan(0);
      expect(
        leaked(bot.output(), {
          ...secrets,
          "database URL": databaseUrl,
          "database password": password,
        }),
      ).toEqual([]);
    },
    POSTGRES_SETUP_TIMEOUT_MS,
  );
});
