import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getGlobalDispatcher } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type WebSocket, WebSocketServer } from "ws";
import { type RunningBot, startBot } from "../../src/app/bot.ts";
import { runDoctor } from "../../src/app/doctor.ts";
import { ManualClock, systemClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/log.ts";
import {
  type RunningScriptedModel,
  startScriptedModel,
} from "../../src/simulator/scripted-model.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import {
  type CountingProxy,
  type Gate,
  startCountingProxy,
  startGate,
} from "../support/counting-proxy.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import { readFixtureJson } from "../support/fixtures.ts";
import { freePort, until } from "../support/start-process-harness.ts";

/**
 * HTTPS_PROXY, HTTP_PROXY and NO_PROXY (issue 38 item 3), on a real run of `start`: Socket Mode
 * against the fake Slack and its WebSocket, the poll against the Palette simulator, a mention
 * answered by the assistant through the scripted model. Each of the four servers sits behind a
 * gate that notes who connected; the proxy notes its own upstream connections. Everything is on
 * 127.0.0.1, and undici exempts no loopback address by itself: what NO_PROXY does not name goes
 * through the proxy even here, so the test sees the real rule, not a loopback shortcut.
 */

const NEVER = "0 0 1 1 *";

let sim: RunningSimulator;
let fake: FakeSlack;
let model: RunningScriptedModel;
let wss: WebSocketServer;
const sockets: WebSocket[] = [];

/** one gate per server, fresh for each test, so each test's connections are its own */
interface Gates {
  palette: Gate;
  slack: Gate;
  socket: Gate;
  model: Gate;
}
let gates: Gates;
let proxy: CountingProxy;
let bot: RunningBot | undefined;

beforeAll(async () => {
  sim = await startSimulator({ clusters: 6, projects: 1, seed: 38 });
  fake = await startFakeSlack();
  model = await startScriptedModel();
  wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await once(wss, "listening");
  wss.on("connection", (socket) => {
    sockets.push(socket);
    socket.send(
      JSON.stringify({ type: "hello", num_connections: 1, connection_info: { app_id: "A111" } }),
    );
  });
  fake.on("apps.connections.open", () => ({ body: { ok: true, url: `${gates.socket.url}link` } }));
});

afterAll(async () => {
  for (const socket of sockets) socket.terminate();
  await new Promise<void>((resolve) => wss?.close(() => resolve()));
  await model?.close();
  await fake?.close();
  await sim?.close();
});

async function openGates(): Promise<void> {
  const wsBase = `http://127.0.0.1:${(wss.address() as AddressInfo).port}/`;
  gates = {
    palette: await startGate(sim.url),
    slack: await startGate(fake.apiUrl),
    socket: await startGate(wsBase),
    model: await startGate(model.baseUrl),
  };
  proxy = await startCountingProxy();
}

afterEach(async () => {
  await bot?.stop();
  bot = undefined;
  for (const socket of sockets.splice(0)) socket.terminate();
  await Promise.all(Object.values(gates ?? {}).map((gate) => gate.close()));
  await proxy?.close();
});

const env = (proxyEnv: Record<string, string>) => ({
  SLACK_BOT_TOKEN: "xoxb-proxy-test",
  SLACK_APP_TOKEN: "xapp-1-A111-proxy-test",
  SLACK_API_URL: gates.slack.url,
  PALETTE_API_URL: gates.palette.url,
  PALETTE_API_KEY: sim.credentials.apiKey,
  PALETTE_PROJECTS: sim.control.projects().join(","),
  STATE_DB: ":memory:",
  PORT: "0",
  POLL_SCHEDULE: NEVER,
  RECONCILE_SCHEDULE: NEVER,
  ASSISTANT_PROVIDER: "openai-compatible",
  ASSISTANT_BASE_URL: gates.model.url,
  ASSISTANT_MODEL: "scripted",
  ...proxyEnv,
});

/** who connected to a gate: through the proxy (one of its upstream sockets), or direct */
const routes = (gate: Gate) => ({
  proxied: gate.peers.filter((port) => proxy.upstreamPorts.has(port)).length,
  direct: gate.peers.filter((port) => !proxy.upstreamPorts.has(port)).length,
});

/** a mention over the socket, answered by the assistant to the asker (a channel answer is ephemeral) */
async function askOverSocket(): Promise<void> {
  const { payload } = readFixtureJson<{ payload: { event: object } }>(
    "slack",
    "events",
    "app_mention.json",
  );
  const asked = model.requests.length;
  const answered = fake.callsTo("chat.postEphemeral").length;
  sockets.at(-1)!.send(
    JSON.stringify({
      envelope_id: `env-${Date.now()}`,
      type: "events_api",
      accepts_response_payload: false,
      retry_attempt: 0,
      retry_reason: "",
      payload: {
        ...payload,
        event: { ...payload.event, text: "<@UBOT> which clusters are unhealthy right now?" },
      },
    }),
  );
  await until("the model to be asked", () => model.requests.length > asked, 20_000);
  // in a channel the assistant answers the asker alone, not streamed (issue 36 item 2)
  await fake.waitFor("chat.postEphemeral", answered + 1, 20_000);
}

/** a start, its first poll, a question to the assistant: every kind of outbound request */
async function realRun(proxyEnv: Record<string, string>): Promise<void> {
  bot = await startBot(loadConfig(env(proxyEnv)), silentLogger, new ManualClock(), {
    replicaId: "proxy-test",
  });
  await until("the socket to open", () => sockets.length > 0);
  await until("the first poll to read Palette", () => sim.control.requests().length > 0);
  await askOverSocket();
}

describe("an outbound proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY)", () => {
  it("carries every Palette, Slack Web API, Socket Mode and model connection of a real run", async () => {
    await openGates();
    await realRun({ HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url });
    for (const [name, gate] of Object.entries(gates)) {
      expect(routes(gate), name).toEqual({ proxied: gate.peers.length, direct: 0 });
      expect(gate.peers.length, name).toBeGreaterThan(0);
      // undici tunnels even http:// targets with CONNECT
      expect(proxy.tunnels, name).toContain(`127.0.0.1:${gate.port}`);
    }
  });

  it("reads the lower-case forms too, and leaves alone what NO_PROXY names (host:port)", async () => {
    await openGates();
    await realRun({
      http_proxy: proxy.url,
      no_proxy: `127.0.0.1:${gates.palette.port}, 127.0.0.1:${gates.model.port}`,
    });
    expect(routes(gates.palette)).toEqual({ proxied: 0, direct: gates.palette.peers.length });
    expect(routes(gates.model)).toEqual({ proxied: 0, direct: gates.model.peers.length });
    expect(gates.palette.peers.length).toBeGreaterThan(0);
    expect(gates.model.peers.length).toBeGreaterThan(0);
    for (const gate of [gates.slack, gates.socket]) {
      expect(routes(gate)).toEqual({ proxied: gate.peers.length, direct: 0 });
      expect(gate.peers.length).toBeGreaterThan(0);
    }
    expect(proxy.tunnels).not.toContain(`127.0.0.1:${gates.palette.port}`);
    expect(proxy.tunnels).not.toContain(`127.0.0.1:${gates.model.port}`);
  });

  it("without a proxy set, every connection is direct (the control: the gates tell the two apart)", async () => {
    await openGates();
    await realRun({});
    for (const [name, gate] of Object.entries(gates)) {
      expect(routes(gate), name).toEqual({ proxied: 0, direct: gate.peers.length });
    }
    expect(proxy.tunnels).toEqual([]);
  });

  it("the doctor asks through the proxy too and names it by host and port, never its password", async () => {
    await openGates();
    const withUser = proxy.url.replace("http://", "http://ops:proxy-pass-1234@");
    const report = await runDoctor({
      // a file not created yet (a warning): the doctor opens an in-memory one as it cannot
      env: {
        ...env({ HTTPS_PROXY: withUser, HTTP_PROXY: withUser }),
        STATE_DB: join(tmpdir(), `proxy-doctor-${process.pid}`, "state.sqlite"),
      },
      clock: systemClock,
    });
    const line = report.lines.find((l) => l.check === "config.proxy");
    const port = new URL(proxy.url).port;
    expect(line?.result).toContain(`http:// through 127.0.0.1:${port}`);
    expect(JSON.stringify(report.lines)).not.toContain("proxy-pass-1234");
    expect(JSON.stringify(report.lines)).not.toContain("ops:");
    // the proxy got the credentials, as Basic
    expect(proxy.authorizations[0]).toBe(
      `Basic ${Buffer.from("ops:proxy-pass-1234").toString("base64")}`,
    );
    for (const name of ["palette", "slack", "model"] as const) {
      expect(routes(gates[name]), name).toEqual({ proxied: gates[name].peers.length, direct: 0 });
      expect(gates[name].peers.length, name).toBeGreaterThan(0);
    }
    expect(report.lines.filter((l) => l.status === "fail")).toEqual([]);
  });

  it("the doctor fails through a proxy that does not answer, and its fix names HTTPS_PROXY", async () => {
    await openGates();
    const dead = `http://127.0.0.1:${await freePort()}`;
    const report = await runDoctor({
      env: {
        ...env({ HTTPS_PROXY: dead, HTTP_PROXY: dead }),
        STATE_DB: join(tmpdir(), `proxy-doctor-dead-${process.pid}`, "state.sqlite"),
      },
      clock: systemClock,
    });
    expect(report.exitCode).toBe(1);
    const auth = report.lines.find((l) => l.check === "slack.auth");
    expect(auth?.status).toBe("fail");
    expect(auth?.fix).toContain("HTTPS_PROXY");
    // nothing reached the servers behind the proxy, nor went round it
    for (const gate of Object.values(gates)) expect(gate.peers).toEqual([]);
  });

  // last: it leaves the fake Slack refusing the token
  it("puts the process's dispatcher back when the start fails", async () => {
    await openGates();
    const before = getGlobalDispatcher();
    fake.on("auth.test", () => ({ body: { ok: false, error: "account_inactive" } }));
    await expect(
      startBot(
        loadConfig(env({ HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url })),
        silentLogger,
        new ManualClock(),
        {
          replicaId: "proxy-refused",
        },
      ),
    ).rejects.toThrow(/account_inactive/);
    // it went through the proxy, then let go of it
    expect(routes(gates.slack).proxied).toBeGreaterThan(0);
    expect(getGlobalDispatcher()).toBe(before);
  });
});
