import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type WebSocket, WebSocketServer } from "ws";
import { allowAll } from "../../src/access/types.ts";
import { systemClock } from "../../src/clock.ts";
import { createLogger } from "../../src/log.ts";
import { Secret } from "../../src/secret.ts";
import { createSlackApp, type RunningSlackApp } from "../../src/slack/app.ts";
import { notice } from "../../src/slack/deliver.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import type { Reply } from "../../src/verb-kit/types.ts";
import { LOGIN_CALLBACK_ID, LOGIN_KEY_FIELD } from "../../src/views/login-modal.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import { loadPayload } from "../support/slack-request.ts";

/**
 * Socket Mode at LOG_LEVEL=debug: the Socket Mode client logs every envelope it receives, raw.
 * A login form's submission carries the pasted Palette API key in `view.state.values`; it must
 * reach no log line, whatever the level.
 */

const PASTED_KEY = "QmFzZTY0TG9va2luZ1BhbGV0dGVLZXlfOTk5OTk5OTk5";
const PASSWORD = "hunter2-correct-horse";

let fake: FakeSlack;
let wss: WebSocketServer;
let bot: RunningSlackApp;
const sockets: WebSocket[] = [];
const fromBot: Array<Record<string, unknown>> = [];
const lines: string[] = [];

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

  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...chunk.toString().split("\n").filter(Boolean));
      done();
    },
  });
  const logger = createLogger("debug", sink);
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
      logger,
      projects: [],
      consoleUrl: "https://console.example.com/",
    },
    logger,
    dispatch: async (text): Promise<Reply> => notice(`socket says ${text}`),
  });
  await bot.start(0);
});

afterAll(async () => {
  await bot?.stop();
  for (const socket of sockets) socket.terminate();
  await new Promise<void>((resolve) => wss?.close(() => resolve()));
  await fake?.close();
});

async function waitForAck(envelopeId: string): Promise<void> {
  const started = Date.now();
  while (!fromBot.some((message) => message.envelope_id === envelopeId)) {
    expect(Date.now() - started).toBeLessThan(5_000);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("Socket Mode at debug", () => {
  it("logs envelopes at debug, but no view state value: the pasted key is in no log line", async () => {
    const { payload } = loadPayload<{ payload: Record<string, unknown> }>("view_submission.json");
    sockets[0]!.send(
      JSON.stringify({
        envelope_id: "env-login",
        type: "interactive",
        accepts_response_payload: true,
        payload: {
          ...payload,
          user: { ...(payload.user as object), id: "U0PERSON" },
          view: {
            ...(payload.view as object),
            id: "VLOGIN",
            callback_id: LOGIN_CALLBACK_ID,
            state: {
              values: {
                [LOGIN_KEY_FIELD]: {
                  [LOGIN_KEY_FIELD]: { type: "plain_text_input", value: PASTED_KEY },
                },
                password: { password: { type: "plain_text_input", value: PASSWORD } },
              },
            },
          },
        },
      }),
    );
    await waitForAck("env-login");
    // an envelope the client cannot parse is logged raw too
    sockets[0]!.send(
      `{"envelope_id":"env-broken","payload":{"view":{"state":{"values":{"k":{"k":{"value":"${PASTED_KEY}"}}}}}`,
    );
    // no ack comes for it: wait for its arrival in the log (the line that could leak), not a while
    const started = Date.now();
    while (!lines.some((line) => line.includes("env-broken"))) {
      expect(Date.now() - started, "the broken envelope was never logged").toBeLessThan(5_000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }

    // the debug logging is on: the envelope's arrival is in the log, only its state is not
    expect(lines.some((line) => line.includes("env-login"))).toBe(true);
    expect(lines.some((line) => line.includes("env-broken"))).toBe(true);
    const leaking = lines.filter((line) => line.includes(PASTED_KEY) || line.includes(PASSWORD));
    expect(leaking).toEqual([]);
  });
});
