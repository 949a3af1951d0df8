import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type WebSocket, WebSocketServer } from "ws";
import { allowAll } from "../../src/access/types.ts";
import { systemClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { Secret } from "../../src/secret.ts";
import { createSlackApp, type RunningSlackApp } from "../../src/slack/app.ts";
import { notice } from "../../src/slack/deliver.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import type { Reply } from "../../src/verb-kit/types.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import { readFixtureJson } from "../support/fixtures.ts";
import { loadPayload } from "../support/slack-request.ts";

const loadEvent = (file: string) =>
  readFixtureJson<{ payload: Record<string, unknown> }>("slack", "events", file);

/**
 * Socket Mode (the manifest's default): the bot opens its WebSocket through
 * apps.connections.open on SLACK_API_URL, acks envelopes over the socket, answers at the
 * response_url, and still serves the custom routes (health) on the port given to start().
 */

let fake: FakeSlack;
let wss: WebSocketServer;
let bot: RunningSlackApp;
let routesPort: number | undefined;
const sockets: WebSocket[] = [];
const fromBot: Array<Record<string, unknown>> = [];
const ran: string[] = [];
/** a command ending in `slow` waits here until the test lets it go: its answer comes after the ack */
let releaseSlow: () => void = () => {};
const slowHeld = new Promise<void>((resolve) => {
  releaseSlow = resolve;
});

beforeAll(async () => {
  fake = await startFakeSlack();
  wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await once(wss, "listening");
  const wsUrl = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/link`;
  wss.on("connection", (socket) => {
    sockets.push(socket);
    socket.on("message", (data) => fromBot.push(JSON.parse(data.toString())));
    socket.send(
      JSON.stringify({ type: "hello", num_connections: 1, connection_info: { app_id: "A111" } }),
    );
  });
  fake.on("apps.connections.open", () => ({ body: { ok: true, url: wsUrl } }));

  const db = await openSqlite(":memory:");
  bot = createSlackApp({
    slack: {
      botToken: new Secret("xoxb-socket-test"),
      appToken: new Secret("xapp-1-A111-socket-test"),
      apiUrl: fake.apiUrl,
      mode: "socket",
    },
    commandDeps: {
      palette: {} as never,
      db,
      audit: new AuditLog(db, systemClock),
      policy: allowAll,
      clock: systemClock,
      logger: silentLogger,
      projects: [],
      consoleUrl: "https://console.example.com/",
    },
    logger: silentLogger,
    customRoutes: [
      { path: "/healthz", method: ["GET"], handler: (_req, res) => res.writeHead(200).end("ok") },
    ],
    dispatch: async (text): Promise<Reply> => {
      ran.push(text);
      if (text.endsWith("slow")) await slowHeld;
      return notice(`socket says ${text}`);
    },
  });
  ({ port: routesPort } = await bot.start(0));
});

afterAll(async () => {
  await bot?.stop();
  for (const socket of sockets) socket.terminate();
  await new Promise<void>((resolve) => wss?.close(() => resolve()));
  await fake?.close();
});

describe("Socket Mode", () => {
  it("connects through apps.connections.open with the app token on SLACK_API_URL", () => {
    const [open] = fake.callsTo("apps.connections.open");
    expect(open).toBeDefined();
    expect(String(open!.headers.authorization)).toBe("Bearer xapp-1-A111-socket-test");
    expect(sockets).toHaveLength(1);
  });

  it("acks a slash command envelope over the socket and answers at the response_url", async () => {
    const { parsed } = loadPayload<{ parsed: Record<string, string> }>("slash_command.json");
    sockets[0]!.send(
      JSON.stringify({
        envelope_id: "env-1",
        type: "slash_commands",
        accepts_response_payload: true,
        payload: {
          ...parsed,
          command: "/palette",
          text: "clusters",
          response_url: `${fake.url}/response/sock1`,
        },
      }),
    );
    const [answer] = await fake.waitFor("response");
    expect(answer!.body).toMatchObject({ _responseId: "sock1", text: "socket says clusters" });
    expect(fromBot.find((message) => message.envelope_id === "env-1")).toBeDefined();
    expect(ran).toEqual(["clusters"]);
  });

  it("acks a mention's events_api envelope before its answer is worked out, then answers in the thread", async () => {
    const { payload } = loadEvent("app_mention.json");
    const started = Date.now();
    sockets[0]!.send(
      JSON.stringify({
        envelope_id: "env-mention",
        type: "events_api",
        accepts_response_payload: false,
        retry_attempt: 0,
        retry_reason: "",
        payload: {
          ...payload,
          event: { ...(payload.event as object), text: "<@UBOT> clusters slow" },
        },
      }),
    );
    while (!fromBot.some((message) => message.envelope_id === "env-mention")) {
      expect(Date.now() - started).toBeLessThan(3_000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // acked while the command is still held: nothing answered yet
    expect(fake.callsTo("chat.postMessage")).toEqual([]);
    releaseSlow();
    const [answer] = await fake.waitFor("chat.postMessage");
    expect(answer!.body).toMatchObject({
      channel: "C123ABC456",
      thread_ts: "1515449522.000016",
      text: "socket says clusters slow",
    });
  });

  it("serves the custom routes on the port given to start()", async () => {
    expect(routesPort).toBeGreaterThan(0);
    const health = await fetch(`http://127.0.0.1:${routesPort}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.text()).toBe("ok");
    expect((await fetch(`http://127.0.0.1:${routesPort}/nope`)).status).toBe(404);
  });
});
