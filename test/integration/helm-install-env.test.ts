import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type RunningScriptedModel,
  startScriptedModel,
} from "../../src/simulator/scripted-model.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { openPostgres } from "../../src/store/postgres.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import { effectiveEnv, type Install, operatorSecrets, render } from "../support/chart.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import { HELM_UNAVAILABLE } from "../support/helm.ts";
import { freshDatabase, POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";
import { postSigned, slashCommandBody } from "../support/slack-request.ts";
import {
  type CliProcess,
  freePort,
  logged,
  type SocketModeServer,
  spawnCli,
  startSocketModeServer,
  until,
} from "../support/start-process-harness.ts";

/**
 * The environment an install's container actually gets, and the bot started with exactly it
 * (issue 32). Each install is rendered by the real Helm with the operator's values, its
 * container's environment computed as the image and Kubernetes build it (the Dockerfile's ENV,
 * then envFrom in order, then env, test/support/container-env.ts), and the bot started as the
 * image runs it (`node --liftoff-only bin/palette-chatops.js start`) with that environment.
 * Only what the cluster's network decides is substituted: where Palette and Slack are (the
 * simulator, the fake Slack), the ports (two replicas share this host), and /data (the volume,
 * a temporary directory here).
 *
 * On main before this issue the same computation gave the HA install STATE_DB from the image
 * beside DATABASE_URL (SQLite won) and PALETTE_PROJECTS and ALLOW_* set to "" by the
 * Deployment's env over the operator's Secret.
 */

const ALLOWED = "U0ALLOWED";
const OTHER = "U0NOTALLOWED";
const CHANNEL = "C0HELM";
const noHelm = HELM_UNAVAILABLE !== undefined;
const dir = mkdtempSync(join(tmpdir(), "helm-install-env-"));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(noHelm)("a chart install's container, started with the environment it gets", () => {
  let sim: RunningSimulator;
  let fake: FakeSlack;
  let databaseUrl: string;
  let project: string;
  let db: SqlDb | undefined;
  let socket: SocketModeServer;
  let model: RunningScriptedModel;
  const runs: CliProcess[] = [];

  beforeAll(async () => {
    databaseUrl = (await freshDatabase()).url;
    sim = await startSimulator({
      clusters: 6,
      projects: 2,
      seed: 32,
      credentials: { apiKey: "fixture-palette-api-key" },
    });
    fake = await startFakeSlack();
    socket = await startSocketModeServer();
    fake.on("apps.connections.open", () => ({ body: { ok: true, url: socket.url } }));
    project = sim.control.projects()[1]!;
    // the assistant fixture's key, checked as the real APIs check theirs
    model = await startScriptedModel({ apiKey: "fixture-model-api-key", models: ["llama3.1:8b"] });
  }, POSTGRES_SETUP_TIMEOUT_MS);

  afterAll(async () => {
    for (const run of runs) await run.kill();
    await db?.close();
    await sim?.close();
    await fake?.close();
    await socket?.close();
    await model?.close();
  });

  /** the install's environment, with only the network's and the volume's parts substituted */
  async function start(install: Install, sets: string[], label: string) {
    const objects = render(install, sets);
    const env = effectiveEnv(
      objects,
      operatorSecrets({ databaseUrl, projects: project, kubeconfig: ALLOWED }),
    );
    const port = await freePort();
    const metricsPort = await freePort();
    const volume = join(dir, label);
    const local = Object.fromEntries(
      Object.entries(env).map(([name, value]) => [name, value.replace(/^\/data\//, `${volume}/`)]),
    );
    const bot = spawnCli(
      ["start"],
      {
        ...local,
        PALETTE_API_URL: sim.url,
        SLACK_API_URL: fake.apiUrl,
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
      },
      { nodeArgs: ["--liftoff-only"] },
    );
    runs.push(bot);
    const started = await until(
      `${label} to start`,
      () => logged(bot, "palette-chatops started")[0],
      90_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${bot.output()}`);
    });
    return { bot, port, env, started };
  }

  async function kubeconfigAs(port: number, signingSecret: string, user: string, id: string) {
    const cluster = sim.control.clusters(project).find((c) => c.state === "Running")!;
    const answer = await postSigned(
      `http://127.0.0.1:${port}/slack/events`,
      signingSecret,
      slashCommandBody({
        text: `kubeconfig ${cluster.name}`,
        userId: user,
        channelId: CHANNEL,
        responseUrl: `${fake.url}/response/${id}`,
      }),
    );
    expect(answer.status).toBe(200);
  }

  it("the HA install: two replicas on the PostgreSQL of DATABASE_URL, one store, one leader", async () => {
    const sets = [`config.PALETTE_PROJECTS=${project}`, `config.ALLOW_KUBECONFIG=${ALLOWED}`];
    const a = await start("ha", sets, "ha-a");
    const b = await start("ha", sets, "ha-b");
    // the image's SQLite default is there, and unused: DATABASE_URL decides
    expect(a.env.SQLITE_DEFAULT_PATH).toBe("/data/palette-chatops.sqlite");
    expect(a.env.STATE_DB).toBeUndefined();
    for (const { started } of [a, b]) {
      expect(started).toMatchObject({ store: "postgres", mode: "http", projects: 1 });
    }
    expect([a.started.leader, b.started.leader].sort()).toEqual([false, true]);
    const leader = a.started.leader ? a.started : b.started;

    db = await openPostgres(databaseUrl, { max: 1 });
    expect(await db.all("SELECT holder FROM leader_leases")).toEqual([{ holder: leader.replica }]);

    // a subscription made through one replica is in the one store both read
    const follower = a.started.leader ? b : a;
    const subscribed = await postSigned(
      `http://127.0.0.1:${follower.port}/slack/events`,
      "fixture-signing-secret",
      slashCommandBody({
        text: "subscribe clusters",
        channelId: CHANNEL,
        responseUrl: `${fake.url}/response/ha-sub`,
      }),
    );
    expect(subscribed.status).toBe(200);
    await until("the subscribe answer", () =>
      fake.callsTo("response").find((call) => call.body._responseId === "ha-sub"),
    );
    expect(
      await db.all("SELECT channel FROM notify_subscriptions WHERE channel = ?", [CHANNEL]),
    ).toEqual([{ channel: CHANNEL }]);

    // the operator's ALLOW_KUBECONFIG (values) is in force: one person gets the file
    const uploads = fake.uploads.size;
    await kubeconfigAs(follower.port, "fixture-signing-secret", ALLOWED, "ha-kube");
    await fake.waitFor("files.completeUploadExternal", 1, 30_000);
    expect(fake.uploads.size).toBe(uploads + 1);
    await kubeconfigAs(follower.port, "fixture-signing-secret", OTHER, "ha-kube-other");
    const refused = await until("the refusal", () =>
      fake.callsTo("response").find((call) => call.body._responseId === "ha-kube-other"),
    );
    expect(JSON.stringify(refused.body)).toContain("not allowed to download kubeconfigs");

    for (const { bot } of [a, b]) expect((await bot.stop("SIGTERM", 20_000)).code).toBe(0);
  }, 240_000);

  it("the existing-Secret install: the operator's PALETTE_PROJECTS and ALLOW_* from their Secret reach the bot", async () => {
    const { bot, port, env, started } = await start("existing-secret", [], "own-secret");
    expect(env).toMatchObject({ PALETTE_PROJECTS: project, ALLOW_KUBECONFIG: ALLOWED });
    expect(started).toMatchObject({ store: "sqlite", projects: 1, leader: true });
    await kubeconfigAs(port, "fixture-signing-secret", ALLOWED, "own-kube");
    await until(
      "the kubeconfig upload",
      () => fake.callsTo("files.completeUploadExternal").length >= 2,
      30_000,
    );
    expect((await bot.stop("SIGTERM", 20_000)).code).toBe(0);
  }, 180_000);

  it("the quick start (Socket Mode) and the HTTP install: SQLite on the volume, the values' settings", async () => {
    const sets = [`config.PALETTE_PROJECTS=${project}`];
    const quick = await start("default", sets, "quick-start");
    expect(quick.env.SQLITE_DEFAULT_PATH).toBe("/data/palette-chatops.sqlite");
    expect(quick.started).toMatchObject({ store: "sqlite", mode: "socket", projects: 1 });
    const [open] = await fake.waitFor("apps.connections.open", 1, 30_000);
    expect(String(open!.headers.authorization)).toBe("Bearer xapp-fixture-app-token");
    expect((await quick.bot.stop("SIGTERM", 20_000)).code).toBe(0);

    const http = await start("http", sets, "http-mode");
    expect(http.started).toMatchObject({ store: "sqlite", mode: "http", projects: 1 });
    expect((await http.bot.stop("SIGTERM", 20_000)).code).toBe(0);
  }, 180_000);

  it("the assistant install: its ASSISTANT_* and key reach the bot, and the doctor's assistant line passes against the model", async () => {
    // only the model's address is the network's: the rest is the fixture's values
    const sets = [`config.PALETTE_PROJECTS=${project}`, `assistant.baseUrl=${model.baseUrl}`];
    const { bot, env, started } = await start("assistant", sets, "assistant");
    expect(env).toMatchObject({
      ASSISTANT_PROVIDER: "openai-compatible",
      ASSISTANT_MODEL: "llama3.1:8b",
      ASSISTANT_API_KEY: "fixture-model-api-key",
    });
    expect(started).toMatchObject({ store: "postgres", mode: "socket", projects: 1 });
    expect((await bot.stop("SIGTERM", 20_000)).code).toBe(0);

    const doctor = spawnCli(["doctor"], {
      ...env,
      PALETTE_API_URL: sim.url,
      SLACK_API_URL: fake.apiUrl,
    });
    await doctor.exited;
    expect(doctor.stdout(), doctor.output()).toMatch(
      /^PASS {2}assistant\s+openai-compatible model API at http:\/\/127\.0\.0\.1:\d+\/v1 reachable, key accepted, llama3\.1:8b served$/m,
    );
    expect(doctor.stdout()).not.toContain("fixture-model-api-key");
    const listed = model.requests.filter((request) => request.path === "/v1/models");
    expect(listed.map((request) => request.authorization)).toEqual([
      "Bearer fixture-model-api-key",
    ]);
  }, 180_000);
});
