import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/server.ts";
import type { FleetCluster, RunningSimulator } from "../../src/simulator/types.ts";
import { type FakeSlack, type RecordedCall, startFakeSlack } from "../support/fake-slack.ts";
import { sampleValue } from "../support/prometheus.ts";
import { loadPayload, postSigned, slashCommandBody } from "../support/slack-request.ts";
import {
  type CliProcess,
  type Exit,
  freePort,
  leaked,
  logged,
  type SocketModeServer,
  spawnCli,
  startSocketModeServer,
  until,
} from "../support/start-process-harness.ts";

/**
 * `palette-chatops start` as an operator runs it: a child process configured only through
 * environment variables, against the Palette simulator and a fake Slack (both in this process).
 * It proves the wiring in src/app/bot.ts end to end: health, readiness, metrics, commands in
 * HTTP and Socket Mode, a kubeconfig to the requester's DM, graceful SIGTERM, restart without
 * loss or repetition, and that no secret reaches the logs.
 */

const SLASH = loadPayload<{ parsed: Record<string, string> }>("slash_command.json").parsed;
const USER = SLASH.user_id!;
const VERIFICATION_TOKEN = SLASH.token!;
const CHANNEL = "C0START";
const EVERY_SECOND = "* * * * * *";
// Simulator tokens are JWT-shaped: any of them in a log line is a leak.
const JWT = /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/;

/** Polls `/readyz` until an answer is accepted, and returns that answer. */
function readyzWhen(
  port: number,
  label: string,
  accept: (answer: Awaited<ReturnType<typeof get>>) => boolean,
) {
  return until(
    label,
    async () => {
      const answer = await get(port, "/readyz");
      return accept(answer) ? answer : undefined;
    },
    15_000,
  );
}

/**
 * The product's bound on a graceful stop is its own watchdog (src/main.ts: exit 1 after 20 s,
 * with this line), inside the pod's grace (the chart's terminationGracePeriodSeconds, 30 s).
 * The harness kills as Kubernetes would, after the grace; a stop in time is one where the
 * watchdog did not fire, however busy the machine.
 */
const WATCHDOG_LINE = "shutdown took longer than 20 s; exiting without finishing it";
const POD_GRACE_MS = 30_000;

const random = (prefix: string) => `${prefix}${randomBytes(12).toString("hex")}`;
const dir = mkdtempSync(join(tmpdir(), "start-process-"));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Http {
  status: number;
  text: string;
  json?: Record<string, unknown>;
}

async function get(port: number, path: string): Promise<Http> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  const text = await response.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json };
}

const responsesTo = (fake: FakeSlack, id: string): RecordedCall[] =>
  fake.callsTo("response").filter((call) => call.body._responseId === id);

/** Every piece of a kubeconfig that is a credential: the token and the CA data. */
function kubeconfigSecrets(kubeconfig: string): Record<string, string> {
  const secrets: Record<string, string> = { "kubeconfig contents": kubeconfig };
  for (const line of kubeconfig.split("\n")) {
    const match =
      /^\s*(token|certificate-authority-data|client-key-data|client-certificate-data):\s*(\S+)/.exec(
        line,
      );
    if (match) secrets[`kubeconfig ${match[1]}`] = match[2]!;
  }
  return secrets;
}

let homeEvents = 0;
/** A signed-body `app_home_opened` (Home tab) for `user`, from the captured payload. */
function homeOpened(user: string): string {
  const { payload } = loadPayload<{ payload: { event: Record<string, unknown> } }>(
    "event_callback.app_home_opened.json",
  );
  homeEvents += 1;
  return JSON.stringify({
    ...payload,
    event_id: `EvHome${homeEvents}`,
    event: { ...payload.event, user, tab: "home" },
  });
}

function expectNoSecrets(proc: CliProcess, secrets: Record<string, string>): void {
  const output = proc.output();
  expect(output.length).toBeGreaterThan(0);
  expect(leaked(output, secrets)).toEqual([]);
  expect(JWT.test(output)).toBe(false);
}

describe("palette-chatops start, HTTP mode with an API key", () => {
  let sim: RunningSimulator;
  let fake: FakeSlack;
  let port: number;
  const stateDb = join(dir, "http.sqlite");
  const secrets = {
    SLACK_BOT_TOKEN: random("xoxb-1111-2222-"),
    SLACK_SIGNING_SECRET: random(""),
    PALETTE_API_KEY: random("pk-"),
  };
  const runs: CliProcess[] = [];
  let env: Record<string, string>;

  const slash = (text: string, responseId: string) =>
    postSigned(
      `http://127.0.0.1:${port}/slack/events`,
      secrets.SLACK_SIGNING_SECRET,
      slashCommandBody({
        text,
        channelId: CHANNEL,
        responseUrl: `${fake.url}/response/${responseId}`,
      }),
    );

  beforeAll(async () => {
    sim = await startSimulator({
      clusters: 12,
      projects: 1,
      seed: 7,
      credentials: { apiKey: secrets.PALETTE_API_KEY },
    });
    fake = await startFakeSlack();
    port = await freePort();
    env = {
      SLACK_BOT_TOKEN: secrets.SLACK_BOT_TOKEN,
      SLACK_SIGNING_SECRET: secrets.SLACK_SIGNING_SECRET,
      SLACK_API_URL: fake.apiUrl,
      PALETTE_API_URL: sim.url,
      PALETTE_API_KEY: secrets.PALETTE_API_KEY,
      PORT: String(port),
      STATE_DB: stateDb,
      POLL_SCHEDULE: EVERY_SECOND,
      ALLOW_KUBECONFIG: USER,
      LOG_LEVEL: "debug",
    };
  });

  afterAll(async () => {
    for (const run of runs) await run.kill();
    await sim?.close();
    await fake?.close();
  });

  it("serves health, readiness, metrics and commands, then stops on SIGTERM with exit 0", async () => {
    // Palette is down from the start: the bot runs but is not ready, and says why.
    sim.control.addFault({ pathPrefix: "/v1/dashboard", kind: "status", status: 503 });
    const bot = spawnCli(["start"], env);
    runs.push(bot);

    await until("/healthz 200", async () => (await get(port, "/healthz")).status === 200, 15_000);
    const started = await until(
      "the started log line",
      () => logged(bot, "palette-chatops started")[0],
    );
    expect(started).toMatchObject({ port, mode: "http" });
    await fake.waitFor("auth.test", 1);

    const down = await readyzWhen(
      port,
      "/readyz to report the failed poll",
      (answer) =>
        answer.status === 503 &&
        /waiting for the first successful poll of Palette \(last attempt: /.test(
          String(answer.json?.reason),
        ),
    );
    expect(down.json).toMatchObject({ status: "not ready", checks: { store: "ok", slack: "ok" } });
    expect(down.json?.failing).toMatchObject({ palette: expect.stringMatching(/last attempt/) });

    // subscribed before the first good poll, so the channel gets the baseline summary
    const subscribed = await slash("subscribe clusters", "sub");
    expect(subscribed.status).toBe(200);
    await until("the subscribe answer", () => responsesTo(fake, "sub")[0]);
    expect(JSON.stringify(responsesTo(fake, "sub")[0]!.body)).toContain("Subscribed");

    sim.control.clearFaults();
    const ready = await readyzWhen(port, "/readyz 200", (answer) => answer.status === 200);
    expect(ready.json).toMatchObject({
      status: "ready",
      checks: { store: "ok", palette: "ok", slack: "ok" },
    });
    const [summary] = await fake.waitFor("chat.postMessage", 1, 10_000);
    expect(summary!.body.channel).toBe(CHANNEL);
    expect(JSON.stringify(summary!.body.blocks)).toContain("Watching 12 clusters");

    // App Home: a user sees the subscriptions of the channels they are in, and no others
    fake.on("users.conversations", (call) => ({
      body: {
        ok: true,
        channels: call.body.user === USER ? [{ id: CHANNEL }] : [{ id: "C0OTHER" }],
        response_metadata: { next_cursor: "" },
      },
    }));
    const homeOf = async (user: string) => {
      const before = fake.callsTo("views.publish").length;
      const opened = await postSigned(
        `http://127.0.0.1:${port}/slack/events`,
        secrets.SLACK_SIGNING_SECRET,
        homeOpened(user),
        { contentType: "application/json" },
      );
      expect(opened.status).toBe(200);
      const published = await fake.waitFor("views.publish", before + 1);
      return published[before]!.body;
    };
    const mine = await homeOf(USER);
    expect(mine.user_id).toBe(USER);
    expect(JSON.stringify(mine.view)).toContain(`<#${CHANNEL}>`);
    expect(JSON.stringify(mine.view)).toContain("12 clusters");
    const theirs = await homeOf("W0STRANGER");
    expect(JSON.stringify(theirs.view)).not.toContain(CHANNEL);
    expect(JSON.stringify(theirs.view)).toContain("None yet");

    // a signed /palette clusters: acked at once, the list arrives at the response_url
    const list = await slash("clusters", "list");
    expect(list.status).toBe(200);
    const [answer] = await until("the clusters answer", () => {
      const found = responsesTo(fake, "list");
      return found.length > 0 ? found : undefined;
    });
    const listed = JSON.stringify(answer!.body);
    for (const cluster of sim.control.clusters()) expect(listed).toContain(cluster.name);

    // a signature made with another secret is refused
    const forged = await postSigned(
      `http://127.0.0.1:${port}/slack/events`,
      "not-the-secret",
      slashCommandBody({ text: "clusters", responseUrl: `${fake.url}/response/forged` }),
    );
    expect(forged.status).toBe(401);

    // the kubeconfig goes to the requester's DM as a file
    const target = sim.control.clusters().find((c) => c.state === "Running")!;
    const kube = await slash(`kubeconfig ${target.name}`, "kube");
    expect(kube.status).toBe(200);
    const [complete] = await fake.waitFor("files.completeUploadExternal", 1, 10_000);
    const [opened] = fake.callsTo("conversations.open");
    expect(opened!.body.users).toBe(USER);
    expect(String(complete!.body.channel_id)).toMatch(/^D/);
    expect(fake.uploads.size).toBe(1);
    const kubeconfig = [...fake.uploads.values()][0]!.toString("utf8");
    expect(kubeconfig).toContain("apiVersion: v1");
    expect(kubeconfig).toContain(target.name);
    const kubeSecrets = kubeconfigSecrets(kubeconfig);
    expect(Object.keys(kubeSecrets)).toContain("kubeconfig token");

    // A Palette blip after that: degraded but still in service, so Slack still reaches the bot
    sim.control.addFault({ pathPrefix: "/v1/dashboard", kind: "status", status: 503 });
    const degraded = await readyzWhen(
      port,
      "/readyz degraded after a failed poll",
      (answer) => answer.status === 200 && answer.json?.status === "degraded",
    );
    expect(degraded.json?.checks).toMatchObject({
      palette: "ok",
      palette_poll: expect.stringMatching(/^the last poll of Palette failed/),
    });
    // Palette rejecting the credential: out of service, with a reason that says what to check
    sim.control.clearFaults();
    sim.control.addFault({ pathPrefix: "/v1/dashboard", kind: "status", status: 401 });
    const rejected = await readyzWhen(
      port,
      "/readyz 503 after Palette rejected the credential",
      (answer) => answer.status === 503,
    );
    expect(rejected.json?.reason).toMatch(/^palette: Palette answered 401 .*check PALETTE_API_KEY/);
    sim.control.clearFaults();
    await readyzWhen(
      port,
      "/readyz 200 again",
      (answer) => answer.status === 200 && answer.json?.status === "ready",
    );

    const metrics = await get(port, "/metrics");
    expect(metrics.status).toBe(200);
    const text = metrics.text;
    expect(
      sampleValue(text, 'palette_chatops_commands_total{verb="clusters",outcome="message"}'),
    ).toBe(1);
    expect(
      sampleValue(text, 'palette_chatops_commands_total{verb="kubeconfig",outcome="file"}'),
    ).toBe(1);
    expect(
      sampleValue(text, 'palette_chatops_commands_total{verb="subscribe",outcome="message"}'),
    ).toBe(1);
    expect(sampleValue(text, "palette_chatops_ack_seconds_count")).toBeGreaterThanOrEqual(3);
    expect(
      sampleValue(
        text,
        'palette_chatops_palette_requests_total{prefix="/v1/dashboard",status="200"}',
      ),
    ).toBeGreaterThan(0);
    expect(
      sampleValue(
        text,
        'palette_chatops_palette_requests_total{prefix="/v1/dashboard",status="503"}',
      ),
    ).toBeGreaterThan(0);
    expect(
      sampleValue(text, 'palette_chatops_poll_duration_seconds_count{outcome="ok"}'),
    ).toBeGreaterThan(0);
    expect(
      sampleValue(text, 'palette_chatops_poll_duration_seconds_count{outcome="error"}'),
    ).toBeGreaterThan(0);
    expect(
      sampleValue(
        text,
        'palette_chatops_slack_calls_total{method="chat.postmessage",outcome="ok"}',
      ),
    ).toBe(1);
    expect(
      sampleValue(text, 'palette_chatops_slack_calls_total{method="views.publish",outcome="ok"}'),
    ).toBe(2);
    expect(sampleValue(text, "palette_chatops_outbox_depth")).toBe(0);
    expect(sampleValue(text, "palette_chatops_outbox_oldest_age_seconds")).toBe(0);
    expect(text).toContain("palette_chatops_poll_clusters 12");

    const exit = await bot.stop("SIGTERM", POD_GRACE_MS);
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(logged(bot, WATCHDOG_LINE)).toEqual([]);
    expect(logged(bot, "palette-chatops stopped")).toHaveLength(1);
    // the debug level was on, so the logs are rich; none of them holds a secret
    expect(bot.logs().some((line) => line.level === 20)).toBe(true);
    expectNoSecrets(bot, {
      ...secrets,
      ...kubeSecrets,
      "verification token": VERIFICATION_TOKEN,
      response_url: `${fake.url}/response/list`,
    });
  }, 60_000);

  it("restarts on the same STATE_DB: a change made while down is announced once, no second baseline", async () => {
    // an earlier failure must not leave a bot holding the port
    for (const run of runs) await run.kill();
    const before = fake.callsTo("chat.postMessage").length;
    expect(before).toBe(1); // the baseline summary; nothing changed since
    const changed: FleetCluster = sim.control.clusters().find((c) => c.state === "Running")!;
    sim.control.setState(changed.uid, "Upgrading");

    // RECONCILE_SCHEDULE every second too: the full reconciliation, every tick, still says it once
    const bot = spawnCli(["start"], { ...env, RECONCILE_SCHEDULE: EVERY_SECOND });
    runs.push(bot);
    await readyzWhen(port, "/readyz 200 after the restart", (answer) => answer.status === 200);
    const posts = () => fake.callsTo("chat.postMessage").slice(before);
    await until("the card for the change", () => posts().length >= 1, 10_000);
    // a few more polls (one a second): nothing else may arrive
    await until(
      "three more polls",
      async () => {
        const m = await get(port, "/metrics");
        return (
          (sampleValue(m.text, 'palette_chatops_poll_duration_seconds_count{outcome="ok"}') ?? 0) >=
            4 &&
          (sampleValue(
            m.text,
            'palette_chatops_poll_cycles_total{kind="reconcile",outcome="ok"}',
          ) ?? 0) >= 3
        );
      },
      10_000,
    );
    const after = posts();
    expect(after).toHaveLength(1);
    expect(after[0]!.body.channel).toBe(CHANNEL);
    expect(after[0]!.body.thread_ts).toBeUndefined();
    const card = JSON.stringify(after[0]!.body.blocks);
    expect(card).toContain(changed.uid);
    expect(card).toContain("Upgrading");
    expect(card).not.toContain("Watching");

    // Slack refuses the token for a while: notifications pause (readiness says why, a metric
    // counts it) and resume by themselves once Slack accepts it again; nothing lost, nothing twice
    let revoked = true;
    const accepted: Array<Record<string, unknown>> = [];
    fake.on("chat.postMessage", (call) => {
      if (revoked) return { body: { ok: false, error: "invalid_auth" } };
      accepted.push(call.body);
      return undefined;
    });
    const second = sim.control.clusters().find((c) => c.state === "Running")!;
    sim.control.setState(second.uid, "Upgrading");
    const paused = await readyzWhen(
      port,
      "/readyz degraded while Slack refuses the token",
      (answer) => answer.status === 200 && answer.json?.status === "degraded",
    );
    const checks = paused.json?.checks as Record<string, unknown> | undefined;
    expect(String(checks?.notify_sender)).toContain("invalid_auth");
    const pausedMetrics = (await get(port, "/metrics")).text;
    expect(sampleValue(pausedMetrics, "palette_chatops_slack_sender_paused")).toBe(1);
    expect(
      sampleValue(
        pausedMetrics,
        'palette_chatops_slack_sender_paused_total{reason="invalid_auth"}',
      ),
    ).toBe(1);
    revoked = false;
    const cardsFor = (uid: string) =>
      accepted.filter((body) => !body.thread_ts && JSON.stringify(body.blocks).includes(uid));
    await until(
      "the held card once Slack accepts the token",
      () => cardsFor(second.uid).length >= 1,
      15_000,
    );
    await readyzWhen(
      port,
      "/readyz ready again",
      (answer) => answer.status === 200 && answer.json?.status === "ready",
    );
    const resumedMetrics = (await get(port, "/metrics")).text;
    expect(sampleValue(resumedMetrics, "palette_chatops_slack_sender_paused")).toBe(0);
    expect(sampleValue(resumedMetrics, "palette_chatops_outbox_dead_letters")).toBe(0);
    expect(cardsFor(second.uid)).toHaveLength(1);

    // SIGTERM while a command waits on a slow Palette: the answer still goes out, then exit 0
    sim.control.addFault({ pathPrefix: "/v1/dashboard", kind: "latency", latencyMs: 1_200 });
    const slow = await slash("clusters", "slow");
    expect(slow.status).toBe(200); // acked; the listing is still under way
    expect(responsesTo(fake, "slow")).toHaveLength(0);
    const exit = await bot.stop("SIGTERM", POD_GRACE_MS);
    sim.control.clearFaults();
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(logged(bot, WATCHDOG_LINE)).toEqual([]);
    expect(JSON.stringify(responsesTo(fake, "slow")[0]?.body)).toContain(changed.name);
    expectNoSecrets(bot, secrets);
  }, 40_000);

  it("METRICS_PORT: probes and the scrape move off the Slack port; Slack requests stay", async () => {
    for (const run of runs) await run.kill();
    const metricsPort = await freePort();
    const bot = spawnCli(["start"], {
      ...env,
      METRICS_PORT: String(metricsPort),
      STATE_DB: join(dir, "metrics-port.sqlite"),
    });
    runs.push(bot);
    const ready = await readyzWhen(
      metricsPort,
      "/readyz 200 on METRICS_PORT",
      (a) => a.status === 200,
    );
    expect(ready.json).toMatchObject({ checks: { store: "ok", palette: "ok", slack: "ok" } });
    expect((await get(metricsPort, "/healthz")).status).toBe(200);
    const scrape = await get(metricsPort, "/metrics");
    expect(scrape.status).toBe(200);
    expect(scrape.text).toContain("palette_chatops_poll_duration_seconds");
    const started = logged(bot, "palette-chatops started")[0];
    expect(started).toMatchObject({ port, metricsPort });
    // the port Slack's ingress reaches serves Slack and nothing else
    for (const path of ["/metrics", "/readyz", "/healthz"]) {
      expect((await get(port, path)).status, path).toBe(404);
    }
    expect((await slash("help", "ops-help")).status).toBe(200);
    await until("the help answer", () => responsesTo(fake, "ops-help")[0]);
    const exit = await bot.stop("SIGTERM", POD_GRACE_MS);
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(logged(bot, WATCHDOG_LINE)).toEqual([]);
    expectNoSecrets(bot, secrets);
  }, 40_000);
});

describe("palette-chatops start, Socket Mode with a service account", () => {
  let sim: RunningSimulator;
  let fake: FakeSlack;
  let socket: SocketModeServer;
  const bots: CliProcess[] = [];

  beforeAll(async () => {
    sim = await startSimulator({
      clusters: 6,
      projects: 1,
      seed: 3,
      credentials: { password: random("pw-") },
    });
    fake = await startFakeSlack();
    socket = await startSocketModeServer();
    fake.on("apps.connections.open", () => ({ body: { ok: true, url: socket.url } }));
  });

  afterAll(async () => {
    for (const bot of bots) await bot.kill();
    await socket?.close();
    await sim?.close();
    await fake?.close();
  });

  it("connects over the socket, acks an envelope, answers, serves health on PORT, exits 0", async () => {
    const port = await freePort();
    const secrets = {
      SLACK_BOT_TOKEN: random("xoxb-3333-4444-"),
      SLACK_APP_TOKEN: random("xapp-1-A111-"),
      PALETTE_PASSWORD: sim.credentials.password,
    };
    const bot = spawnCli(["start"], {
      SLACK_BOT_TOKEN: secrets.SLACK_BOT_TOKEN,
      SLACK_APP_TOKEN: secrets.SLACK_APP_TOKEN,
      SLACK_API_URL: fake.apiUrl,
      PALETTE_API_URL: sim.url,
      PALETTE_EMAIL: sim.credentials.email,
      PALETTE_ORG: sim.credentials.org,
      PALETTE_PASSWORD: secrets.PALETTE_PASSWORD,
      // refreshed every second, so several tokens are issued during the run
      TOKEN_REFRESH_SCHEDULE: EVERY_SECOND,
      PORT: String(port),
      STATE_DB: join(dir, "socket.sqlite"),
      POLL_SCHEDULE: EVERY_SECOND,
      ALLOW_KUBECONFIG: USER,
      LOG_LEVEL: "debug",
    });
    bots.push(bot);

    await until("/healthz 200", async () => (await get(port, "/healthz")).status === 200, 15_000);
    const [open] = await fake.waitFor("apps.connections.open", 1);
    expect(String(open!.headers.authorization)).toBe(`Bearer ${secrets.SLACK_APP_TOKEN}`);
    expect(socket.sockets.length).toBeGreaterThanOrEqual(1);
    const started = await until(
      "the started log line",
      () => logged(bot, "palette-chatops started")[0],
    );
    expect(started).toMatchObject({ port, mode: "socket" });
    const ready = await readyzWhen(port, "/readyz 200", (answer) => answer.status === 200);
    expect(ready.json).toMatchObject({ checks: { store: "ok", palette: "ok", slack: "ok" } });

    const { parsed } = loadPayload<{ parsed: Record<string, string> }>("slash_command.json");
    socket.send({
      envelope_id: "env-clusters",
      type: "slash_commands",
      accepts_response_payload: true,
      payload: {
        ...parsed,
        command: "/palette",
        text: "clusters",
        channel_id: CHANNEL,
        response_url: `${fake.url}/response/sock-list`,
      },
    });
    await until("the ack envelope", () =>
      socket.fromBot.find((message) => message.envelope_id === "env-clusters"),
    );
    const [answer] = await until("the clusters answer", () => {
      const found = responsesTo(fake, "sock-list");
      return found.length > 0 ? found : undefined;
    });
    const listed = JSON.stringify(answer!.body);
    for (const cluster of sim.control.clusters()) expect(listed).toContain(cluster.name);

    const target = sim.control.clusters()[0]!;
    socket.send({
      envelope_id: "env-kube",
      type: "slash_commands",
      accepts_response_payload: true,
      payload: {
        ...parsed,
        command: "/palette",
        text: `kubeconfig ${target.uid}`,
        channel_id: CHANNEL,
        response_url: `${fake.url}/response/sock-kube`,
      },
    });
    await fake.waitFor("files.completeUploadExternal", 1, 10_000);
    const kubeconfig = [...fake.uploads.values()][0]!.toString("utf8");
    expect(kubeconfig).toContain(target.name);

    // the service account logged in and refreshed its token on the timer
    const metrics = await until(
      "a token refresh",
      async () => {
        const m = await get(port, "/metrics");
        return (sampleValue(
          m.text,
          'palette_chatops_palette_token_refreshes_total{outcome="ok"}',
        ) ?? 0) >= 1
          ? m.text
          : undefined;
      },
      10_000,
    );
    expect(
      sampleValue(metrics, 'palette_chatops_palette_logins_total{outcome="ok"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sampleValue(metrics, 'palette_chatops_commands_total{verb="clusters",outcome="message"}'),
    ).toBe(1);
    expect(sampleValue(metrics, "palette_chatops_ack_seconds_count")).toBeGreaterThanOrEqual(2);
    expect(
      sampleValue(metrics, 'palette_chatops_poll_duration_seconds_count{outcome="ok"}'),
    ).toBeGreaterThan(0);
    expect(sim.control.requests().some((r) => r.auth === "token" && r.status === 200)).toBe(true);
    expect(JWT.test(metrics)).toBe(false);
    expect(leaked(metrics, secrets)).toEqual([]);

    const exit = await bot.stop("SIGTERM", POD_GRACE_MS);
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(logged(bot, WATCHDOG_LINE)).toEqual([]);
    expect(logged(bot, "palette-chatops stopped")).toHaveLength(1);

    // the simulator issues JWT-shaped tokens: prove the pattern catches one, then that none leaked
    const issued = await fetch(`${sim.url}/v1/auth/authenticate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        emailId: sim.credentials.email,
        org: sim.credentials.org,
        password: sim.credentials.password,
      }),
    });
    const token = String(((await issued.json()) as { Authorization?: unknown }).Authorization);
    expect(token).toMatch(JWT);
    expectNoSecrets(bot, {
      ...secrets,
      ...kubeconfigSecrets(kubeconfig),
      // Socket Mode logs whole envelopes at debug; these fields of theirs are credentials too
      "verification token": parsed.token!,
      response_url: `${fake.url}/response/sock-list`,
    });
  }, 40_000);

  it("a SIGTERM during start-up (Slack still answering auth.test) still stops gracefully", async () => {
    fake.reset();
    let release: (() => void) | undefined;
    fake.on("auth.test", async () => {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return undefined;
    });
    const port = await freePort();
    const early = spawnCli(["start"], {
      SLACK_BOT_TOKEN: random("xoxb-5555-"),
      SLACK_SIGNING_SECRET: random(""),
      SLACK_API_URL: fake.apiUrl,
      PALETTE_API_URL: sim.url,
      PALETTE_API_KEY: sim.credentials.apiKey,
      PORT: String(port),
      STATE_DB: join(dir, "early.sqlite"),
      LOG_LEVEL: "info",
    });
    bots.push(early);
    await until("the auth.test call", () => release !== undefined, 15_000);
    early.child.kill("SIGTERM");
    await until("the shutdown log line", () => logged(early, "shutting down")[0]);
    release!();
    // no second signal: that one would mean "exit at once"
    let exit: Exit | undefined;
    void early.exited.then((value) => {
      exit = value;
    });
    await until("the exit", () => exit, POD_GRACE_MS);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(logged(early, WATCHDOG_LINE)).toEqual([]);
    expect(logged(early, "palette-chatops started")).toHaveLength(1);
    expect(logged(early, "palette-chatops stopped")).toHaveLength(1);
  }, 30_000);
});
